// The expert system: a profile of the model's DAG, and the decisions and
// warnings it leads to (the specification's "Breakdown of the Heuristics").
//
// Profile() measures the DAG: depth (the longest chain of parameter-heavy
// operations — matmul, gemm, conv2d, convTranspose2d — from an input to an
// output), width (the largest feature count of a heavy operation's
// result), the heavy operations and their data types, normalization,
// dropout density (dropout layers per heavy operation), the input size,
// the activations before each output, and the float16 operations that
// overflow easily (softmax, log, exp, normalizations).
//
// Advise() resolves every 'auto' hyperparameter and reports each choice as
// a Decision with its reason, and each pitfall as a warning:
//   - loss: model:loss, else from the output activation; mismatches between
//     each output's loss, its activation and the data are warnings (after
//     scouting,
//     loss_tuning.h may switch a chosen MSE to Huber and set δ and γ);
//   - gradientScaling 'auto': on when most heavy operations run in float16;
//     float16 with scaling 'off' is a strong warning;
//   - gradientClipping 'auto': AGC for a deep model (depth > 15) without
//     normalization (NFNets), else global-norm clipping;
//   - regularization 'auto': L2 for a model whose dropout density is below
//     0.2 and that is high-capacity (depth >= 3 heavy layers and width >=
//     128, or more than 1M parameters; λ2 = 1e-4 unless given) or has more
//     parameters than a small training set (under 10,000 samples) has
//     samples (λ2 = 1e-3 unless given: such a set is memorized within a few
//     epochs); L1 (λ1 = 1e-5 unless given) for a massive input (more than
//     5,000 features);
//   - float16-vulnerable operations: the layers the DAG computes in float32
//     for float16 data (Dag::widened) as a decision; those asked to stay
//     float16 (dataType=float16) in one grouped warning;
//   - the NPU nudge: one aggregate note when heavy operations stay float32
//     in a model that uses float16 elsewhere or optimizes for the edge;
//   - gradient scaling 'auto': on when any heavy operation runs in float16;
//   - regularization L1/L2 with that term's lambda at 0: a warning; a lambda
//     given with 'auto' turns its term on;
//   - lossWeights 'auto' with several outputs: learned uncertainty weights
//     (and a gradient scale of at least 128 with float16);
//   - lion or rlion with a step budget (about lr * steps / 2, the distance
//     a parameter can travel) below 1: a warning to raise epochs or lr;
//   - features far from unit scale (RMS outside [0.25, 4] on a sample of
//     the training data): a warning; outside [0.5, 2] the first layer's
//     initial weights are scaled by 1 / RMS so that its outputs start at
//     unit scale (and AdviseStandardization standardizes the data when it is
//     outside [0.2, 5]).
#ifndef WEBNNM_ENGINE_EXPERT_EXPERT_H_
#define WEBNNM_ENGINE_EXPERT_EXPERT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/train/trainer.h"

namespace webnnm::train {

struct DagProfile {
  int depth = 0;          // heavy operations on the longest path
  int64_t width = 0;      // the largest heavy result's feature count
  int heavy = 0;          // heavy operations
  int heavy_float16 = 0;  // of which in float16
  // Trainable parameter elements that the float32 heavy operations read.
  int64_t heavy_float32_parameters = 0;
  int float16_ops = 0;  // operations with a float16 result
  bool normalization = false;
  bool recurrent = false;  // lstm, gru or their cells
  int dropout = 0;
  double dropout_density = 0;  // dropout layers per heavy operation
  int64_t input_size = 0;      // features of the largest input
  int64_t parameters = 0;      // trainable parameter elements
  std::vector<std::string> float16_vulnerable;  // op names, once each
};

DagProfile Profile(const dag::Dag& dag);

struct Advice {
  Hyperparameters resolved;  // no 'auto' left
  bool uncertainty_weights = false;
  double input_init_scale = 1.0;  // for parameters read by the first layer
  std::vector<Decision> decisions;
  std::vector<std::string> warnings;
};

// `specs`: every output's loss (OutputSpecs), the first one's deciding
// what depends on one loss (the batch size); `feature_rms`: the root mean
// square of a sample of the training features; `training_samples`: the
// training subset's size (each nullopt when unknown, and the heuristics
// that need it are left out).
Advice Advise(const dag::Dag& dag, const DagProfile& profile,
              const Hyperparameters& requested,
              const std::vector<OutputSpec>& specs,
              std::optional<double> feature_rms,
              std::optional<int64_t> training_samples = std::nullopt);
// The same for a model of one output.
Advice Advise(const dag::Dag& dag, const DagProfile& profile,
              const Hyperparameters& requested, const OutputSpec& loss,
              std::optional<double> feature_rms,
              std::optional<int64_t> training_samples = std::nullopt);

// Standardizes `data` with its training subset's statistics (kept with
// the model), as `mode` says: kOn the features; kAuto the features unless
// they are near unit scale already (the mean of |μ| over features at most
// 1 and the RMS of σ over the varying ones within [0.25, 4]) or the model's
// input takes integers — unscaled features make the first layer's updates
// too large for the usual learning rates —; for kOn and kAuto also the
// targets of every regression output whose last layer is linear (an
// unbounded output; predictions are mapped back with the kept statistics).
// kOff changes nothing. Returns the decisions made (none for what kOn was
// asked to do with the features).
std::vector<Decision> AdviseStandardization(Dataset& data, StandardizeMode mode,
                                            const dag::Dag& dag);

// After a run: a warning when it used all its `epochs` (more than one) and
// its last epoch had the best validation loss, so more epochs would likely
// help; nullopt otherwise (or without a validation subset).
std::optional<std::string> AdviseMoreEpochs(int best_epoch, int epochs_run,
                                            int epochs, bool validated);

// After a run: an "overfitting" warning when, over the epochs it ran (its
// reports, in order), the validation loss rose for at least a quarter of
// them (the epochs since the one with the lowest validation loss), by at
// least (kOverfitRise - 1) of its lowest's size, while the training loss
// fell by at least (1 - kOverfitFall) of its size then — the model learns the training
// rows rather than the task. The warning gives the numbers and what to try;
// nullopt otherwise (or without validation losses).
inline constexpr double kOverfitRise = 1.1;
inline constexpr double kOverfitFall = 0.9;
std::optional<std::string> AdviseOverfitting(
    const std::vector<EpochReport>& history);

// The root mean square of the features of up to 1000 training samples.
std::optional<double> FeatureRms(const Dataset& data);

// What training would decide before its first step, without training:
// the loss choices (OutputSpecs) and Advise()'s decisions and warnings, for
// `data` as training would see it (split and standardized; see
// Run::PreviewTraining, which adds preparing's decisions). Without data the
// feature-scale heuristics are left out. Errors: those of OutputSpecs, and a
// `data` that does not suit the model.
struct Preview {
  Hyperparameters resolved;  // no 'auto' left
  std::vector<Decision> decisions;
  std::vector<std::string> warnings;
};
absl::StatusOr<Preview> PreviewTraining(const dag::Dag& dag,
                                        const Hyperparameters& requested,
                                        const Dataset* data);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_EXPERT_H_
