// Feeding a dataset to compiled graphs (internal to engine/train): a
// Feeder writes a batch of samples into an executable's model input, its
// target and its row mask (padded rows of a short last batch are masked);
// an Evaluator runs the evaluation graph over a subset and sums the loss
// and the correct rows.
#ifndef WEBNNM_ENGINE_TRAIN_FEEDER_H_
#define WEBNNM_ENGINE_TRAIN_FEEDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/train/dataset.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

// Writes up to `count` floats (no more than the input holds).
void WriteFloats(backends::Executable& exe, int input, const float* data,
                 size_t count);
// Writes up to `count` values converted to the input's type (float32 or
// float16).
void WriteValues(backends::Executable& exe, int input, const float* data,
                 size_t count);
float ReadScalar(const backends::Executable& exe, int output);

// The number of values per sample of the DAG's output `name`.
int64_t OutputWidth(const dag::Dag& dag, const std::string& name);

class Feeder {
 public:
  Feeder(const Dataset& data, const OutputSpec& spec, int64_t batch,
         int64_t output_width)
      : data_(data), spec_(spec), batch_(batch), out_width_(output_width) {}

  // Finds the executable's inputs (the model input, target:<output>, mask)
  // and checks the model input's size against the dataset's samples.
  absl::Status Bind(backends::Executable& exe, const std::string& input_name);

  // Fills rows from samples[begin, begin + batch) (fewer at the end; the
  // rest are zero and masked).
  absl::Status Fill(backends::Executable& exe,
                    const std::vector<int64_t>& samples, int64_t begin);

 private:
  const Dataset& data_;
  OutputSpec spec_;
  int64_t batch_, out_width_;
  int input_ = -1, target_ = -1, mask_ = -1;
  std::vector<float> features_, targets_, mask_values_;
};

class Evaluator {
 public:
  static absl::StatusOr<Evaluator> Make(const dag::Dag& dag,
                                        const Dataset& data,
                                        const OutputSpec& spec, int64_t batch,
                                        int threads,
                                        backends::Backend& backend);

  // Binds parameters by name (names the graph lacks are ignored).
  void SetParameters(const Params& params);
  absl::StatusOr<Evaluation> Run(const Dataset& data, Subset subset);

 private:
  std::unique_ptr<backends::Executable> exe_;
  std::unique_ptr<Feeder> feeder_;
  OutputSpec spec_;
  int64_t batch_ = 1;
};

// Checks a single-input, single-output DAG against the dataset: the input's
// size against the samples', the output's units against the classes or
// targets.
absl::Status CheckShapes(const dag::Dag& dag, const Dataset& data,
                         const OutputSpec& spec);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_FEEDER_H_
