// The learning-rate range test (after Smith, "Cyclical Learning Rates",
// and fastai's lr_find): from the scouted start, a few hundred steps at
// most with the learning rate growing geometrically from `lo` to `hi`;
// the loss, smoothed, falls while the rate is useful and climbs once it
// is too high. The run is a trial: it starts from a copy of the state, and
// the caller loads the untouched state back before training.
//
// ChooseLearningRate() is the rule, apart from the steps so that it can be
// tested on made-up curves: the loss smoothed by an exponential moving
// average (0.95, corrected for its start), trusted from its tenth step on;
// the rate where it is lowest, divided by RangeDivisor() of the epochs the
// sweep spans, but never below `lo`. The sweep stops at a non-finite loss
// or once the smoothed loss is 4 times its minimum.
//
// Checked where it is suspect: a minimum at the sweep's top (within a
// factor of 2 of `hi`, the loss never running away: it still fell there,
// and the minimum says nothing of where it would rise) is no minimum to
// divide: the rate is then the one where the smoothed loss fell fastest
// (the steepest descent), when that is lower, and the result says so
// (at_edge) for a warning. Measured and left out (docs/training.md): more
// batch orders on every sweep (their curves averaged, or the median of
// their choices) and, at the edge, a second sweep 100 times higher — each
// trained worse on the suite's fitting half or on the shipped sets than
// one sweep.
#ifndef WEBNNM_ENGINE_EXPERT_LR_FINDER_H_
#define WEBNNM_ENGINE_EXPERT_LR_FINDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/train/hyperparameters.h"
#include "engine/train/state.h"
#include "engine/train/step_runner.h"

namespace webnnm::train {

// The rate chosen is the smoothed loss's minimum's divided by the epochs of
// the training set the sweep spans, within [kFewestDivisor, kMostDivisor].
// On a small set the sweep runs over many epochs, and its loss goes on
// falling from fitting rows it saw before up to rates too high for a whole
// run (iris, wine, diabetes: 30-50 epochs, a tenth of the minimum's rate
// trains best); on a large set it sees a sample once at most, and half the
// minimum's rate trains best (Fashion-MNIST: a sweep of 0.14 epochs).
// Measured on the shipped sets: docs/training.md.
inline constexpr double kFewestDivisor = 2;
inline constexpr double kMostDivisor = 10;
double RangeDivisor(double sweep_epochs);

// The range an optimizer's test sweeps: sign-based ones (lion, rlion) move
// each weight by about lr a step, so their useful rates are small.
struct RateRange {
  double lo = 1e-5, hi = 1;
};
RateRange RangeFor(OptimizerKind optimizer);

// What a test saw and chose.
struct RangeTestResult {
  double lo = 0, hi = 0;  // the sweep
  int steps = 0;          // the steps run (fewer when it stopped early)
  double best_lr = 0;     // where the smoothed loss was lowest
  double best_loss = 0;   // that smoothed loss
  double first_loss = 0;  // the smoothed loss at the first step
  double divisor = 0;     // lr = best_lr / divisor (or lo)
  double lr = 0;          // the choice
  bool diverged = false;  // stopped when the loss ran away
  double seconds_per_step = 0;
  bool at_edge = false;   // the minimum within a factor of 2 of hi
  double steep_lr = 0;    // where the smoothed loss fell fastest
  // The curve the rule read: each step's rate and raw loss.
  std::vector<double> rates, losses;
};

// The decision a range test makes (its numbers, in words a newcomer
// reads), and the warning when its minimum was at the sweep's top.
Decision RangeTestDecision(const RangeTestResult& r, OptimizerKind optimizer,
                           double sweep_epochs);
std::string RangeTestEdgeWarning(const RangeTestResult& r);


// The choice for a sweep's rates and raw batch losses (NaN or inf ends the
// curve). Fills everything but steps and seconds_per_step.
RangeTestResult ChooseLearningRate(const std::vector<double>& rates,
                                   const std::vector<double>& losses,
                                   RateRange range, double divisor);

// The sweep's steps: enough for a smoothed curve over the range's decades
// (one batch's loss is noisy, a regression's most), a seventh of an epoch
// of a 45,000-sample set at batch 32, and many epochs of a small one (the
// sweep is a trial: the run starts from the scouted start all the same).
inline constexpr int kRangeTestSteps = 200;

// Runs the sweep on `order` (concatenated epoch orders, at least steps ×
// batch samples) from a copy of `start`, which the step must hold (Load).
absl::StatusOr<RangeTestResult> RunRangeTest(StepRunner& step,
                                             const TrainState& start,
                                             const std::vector<int64_t>& order,
                                             int batch, int steps,
                                             RateRange range, double divisor,
                                             bool scaling);

// `steps` trial steps at a constant rate from a copy of `start`: the
// seconds a step takes (for planning within a time budget).
absl::StatusOr<double> TimeSteps(StepRunner& step, const TrainState& start,
                                 const std::vector<int64_t>& order, int batch,
                                 int steps, double lr, bool scaling);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_LR_FINDER_H_
