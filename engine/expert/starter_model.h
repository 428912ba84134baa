// A starter model from the data: what `webnnmctl init --dataset FILE` writes
// and the browser offers after an upload — a readable, commented model in
// the WebNNM language that fits the data and trains with no flags.
//
// What it reads of the data, and what it writes:
//   CSV          the label column (--label, else a column named like a
//                label, else the last), classes (text, or at most 20 whole
//                numbers) or values; features counted as training will read
//                them (text columns one-hot: text_columns.h) → an MLP:
//                hidden dense layers sized by the training rows (StarterWidth),
//                an output of one unit a class (softmax) or value;
//   image folder (or .zip of one)  its classes and first image's size → a
//                small CNN (two 3×3 convolutions with pooling, a dense
//                layer);
//   IDX folder   28×28 gray images of 10 classes → the same CNN;
//   .npz         an input block per array of features ([N, F]: dense; [N,
//                T, F] or ids with NAME_lengths: an LSTM, ids through an
//                embedding; [N, C, H, W]: a CNN), an output per label array
//                (y, NAME_target, or an array of one value a sample: integers
//                are classes, numbers values; [N, T] labels a class a step);
//                several inputs are concatenated before the outputs.
// The templates come from the prelude (model/prelude.h). Every choice is
// said in the model's comments and returned as notes.
//
// Errors: NotFound for a missing path; InvalidArgument for data it cannot
// make a model of (naming what it found).
#ifndef WEBNNM_ENGINE_EXPERT_STARTER_MODEL_H_
#define WEBNNM_ENGINE_EXPERT_STARTER_MODEL_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::train {

struct StarterOptions {
  std::string label;       // a CSV's label column (empty: chosen)
  std::string name;        // the model's name (empty: the data file's stem)
  bool no_header = false;  // the CSV has no header row
  // How the model's comments name the data (empty: the path's file name).
  std::string shown_as;
  // The hidden layers of a CSV's model (nullopt: StarterWidth's rule): for
  // measuring other shapes.
  std::optional<std::pair<int64_t, int>> shape;  // width, layers
};

struct StarterModel {
  std::string text;                // the model, in the WebNNM language
  std::vector<std::string> notes;  // what was chosen, in words
  std::string label;               // a CSV's label column
};

absl::StatusOr<StarterModel> WriteStarterModel(const std::string& path,
                                               const StarterOptions& options);

// The hidden layers for `training_rows` rows of `features` features: one
// of 256 relu units below kDeepRows training rows, two above — measured on
// the benchmark suite's fitting half with the dense recipe
// (docs/training.md).
struct StarterShape {
  int64_t width = 256;
  int layers = 1;
};
inline constexpr int64_t kDeepRows = 5000;
StarterShape StarterWidth(int64_t training_rows, int64_t features,
                          int64_t outputs);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_STARTER_MODEL_H_
