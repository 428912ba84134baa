// What the starter models share (starter_model.cc: CSV and images;
// starter_npz.cc: NumPy archives), internal to engine/expert.
#ifndef WEBNNM_ENGINE_EXPERT_STARTER_INTERNAL_H_
#define WEBNNM_ENGINE_EXPERT_STARTER_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/expert/starter_model.h"

namespace webnnm::train::internal {

// The training rows of the default split (70,15,15).
int64_t TrainingRows(int64_t rows);
// A name the language takes (letters, digits, '-' and '_', from a letter):
// `wanted`, else the path's stem.
std::string ModelName(const std::string& wanted, const std::string& path);
// Whether a column or array is named like a label (label, target, class,
// y, outcome, response, category; any case).
bool NamedLikeALabel(const std::string& name);
// `text` as comment lines of at most 78 columns, each starting "# ".
std::string Comment(const std::string& text);

struct ImageSize {
  int64_t channels = 1, height = 0, width = 0;
};
// Two 3×3 convolutions with 2×2 pooling (one when the images are small),
// then a dense layer (and, with `output`, the softmax of `units`): the
// layers' lines, each starting with `indent`, the last ending ";"; their
// words added to `notes`.
std::string ConvLayers(const ImageSize& in, int64_t units,
                       const std::string& indent, bool output,
                       std::vector<std::string>& notes);

// The starters by kind of data.
absl::StatusOr<StarterModel> CsvStarter(const std::string& path,
                                        const StarterOptions& options);
absl::StatusOr<StarterModel> ImageStarter(
    const std::string& path, const ImageSize& size,
    const std::vector<std::string>& classes, int64_t images,
    const StarterOptions& options);
absl::StatusOr<StarterModel> NpzStarter(const std::string& path,
                                        const StarterOptions& options);

}  // namespace webnnm::train::internal

#endif  // WEBNNM_ENGINE_EXPERT_STARTER_INTERNAL_H_
