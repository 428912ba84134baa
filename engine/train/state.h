// The state of a training run: the hyperparameters as resolved, and
// everything the loop carries from one epoch to the next. A snapshot
// (checkpoint.h) stores it; Train() resumes from it exactly.
#ifndef WEBNNM_ENGINE_TRAIN_STATE_H_
#define WEBNNM_ENGINE_TRAIN_STATE_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/train/hyperparameters.h"
#include "engine/train/metrics.h"

namespace webnnm::train {

// A run that diverges (a non-finite epoch loss) goes back to its last good
// epoch with a tenth of its learning rate at most this many times, then
// fails.
inline constexpr int kMaxDivergences = 2;

// A decision of the expert system or the trainer, with its reason.
struct Decision {
  std::string what, why;
};

struct OutputScore {
  double loss = 0;
  std::optional<double> accuracy;  // classification only
};

// Loss and accuracy over a subset; with metrics (a test), each output's
// metrics.h figures.
struct Evaluation {
  int64_t samples = 0;
  double loss = 0;  // the weighted total over outputs
  std::optional<double> accuracy;
  std::map<std::string, OutputScore> outputs;
  std::map<std::string, OutputMetrics> metrics;
};

// Tensors by parameter name (float32 values, row-major).
using Params = std::map<std::string, std::vector<float>>;

// An output's loss as the expert system set it after scouting
// (loss_tuning.h): the loss's abbreviation (HUL, FOL, ...), δ and γ.
struct TunedLoss {
  std::string output;
  std::string loss;
  double delta = 1, gamma = 2;
};

// The loop's state after `epoch` complete epochs.
struct TrainState {
  Hyperparameters hyper;  // resolved by the expert system: no 'auto' left
  int epoch = 0;          // complete epochs
  int64_t step = 0;       // steps run; the step graph's random state
  // Dynamic loss scaling.
  double loss_scale = 1;
  int64_t clean_steps = 0;
  // Updates applied since the optimizer's state (momenta) was zero: adam's
  // bias corrections count them.
  int64_t optimizer_updates = 0;
  // Global-norm clipping statistics.
  float clip_mu = 0, clip_sigma = 0;
  bool clip_first = true;
  // Early stopping: the best score (validation loss, or training loss
  // without a validation subset), its epoch, epochs since.
  double best_score = std::numeric_limits<double>::infinity();
  int best_epoch = 0;
  int since_best = 0;
  std::optional<double> best_validation_loss;
  // Scouting: the healthy candidates, best first (0-based), and how often
  // a dead network was replaced by the next one (the start now is
  // scout_ranking[restarts]); the first layer's initial scale.
  std::vector<int> scout_ranking;
  int restarts = 0;
  double init_scale = 1;
  // Divergence: how often the run went back to its last good epoch with a
  // lower learning rate (hyper.lr is the lowered one).
  int divergences = 0;
  // The learning-rate schedule's current cycle (warmup, then cosine
  // annealing to hyper.epochs) began at this step, after this epoch: 0 and
  // 0 but after a resume that extended the run (a warm restart).
  int64_t cycle_step = 0;
  int cycle_epoch = 0;
  // Wall-clock seconds of the run so far (scouting, the range test, epochs
  // with their validation): what timeBudget counts.
  double elapsed_seconds = 0;
  // Metrics.
  double final_train_loss = std::numeric_limits<double>::quiet_NaN();
  double train_seconds = 0;
  int64_t trained_samples = 0;
  // Every parameter now (trainable and running statistics), the optimizer
  // momenta of the trainable ones, and the best epoch's parameters.
  Params params, momenta, best;
  std::vector<Decision> decisions;
  std::vector<std::string> warnings;
  std::vector<TunedLoss> tuned_losses;  // set after scouting
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_STATE_H_
