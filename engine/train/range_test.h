// The learning-rate range test (after Smith, "Cyclical Learning Rates",
// and fastai's lr_find): from the scouted start, a few hundred steps at
// most with the learning rate growing geometrically from `lo` to `hi`;
// the loss, smoothed, falls while the rate is useful and climbs once it
// is too high. The run is a trial: it starts from a copy of the state, and
// the caller loads the untouched state back before training.
//
// ChooseLearningRate() is the rule, apart from the steps so that it can be
// tested on made-up curves: the rate where the smoothed loss is lowest,
// divided by kRangeDivisor (the steepest fall sits about there, and a
// maximum rate of a cosine schedule at the minimum itself trains
// unstably), but never below `lo`.
#ifndef WEBNNM_ENGINE_TRAIN_RANGE_TEST_H_
#define WEBNNM_ENGINE_TRAIN_RANGE_TEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/train/hyperparameters.h"
#include "engine/train/state.h"
#include "engine/train/step_runner.h"

namespace webnnm::train {

// The rate chosen is the smoothed loss's minimum's divided by this.
inline constexpr double kRangeDivisor = 10;

// The range an optimizer's test sweeps: sign-based ones (lion, rlion) move
// each weight by about lr a step, so their useful rates are small.
struct RateRange {
  double lo = 1e-5, hi = 1;
};
RateRange RangeFor(OptimizerKind optimizer);

// What a test saw and chose.
struct RangeTestResult {
  double lo = 0, hi = 0;     // the sweep
  int steps = 0;             // the steps run (fewer when it stopped early)
  double best_lr = 0;        // where the smoothed loss was lowest
  double best_loss = 0;      // that smoothed loss
  double first_loss = 0;     // the smoothed loss at the first step
  double lr = 0;             // the choice
  bool diverged = false;     // stopped when the loss ran away
  double seconds_per_step = 0;
};

// The choice for a sweep's rates and raw batch losses (NaN or inf ends the
// curve). Fills everything but steps and seconds_per_step.
RangeTestResult ChooseLearningRate(const std::vector<double>& rates,
                                   const std::vector<double>& losses,
                                   RateRange range);

// The steps for a training subset of `steps_per_epoch` steps: two epochs'
// worth, within [50, 200].
int RangeTestSteps(int64_t steps_per_epoch);

// Runs the sweep on `order` (concatenated epoch orders, at least steps ×
// batch samples) from a copy of `start`, which the step must hold (Load).
absl::StatusOr<RangeTestResult> RunRangeTest(StepRunner& step,
                                             const TrainState& start,
                                             const std::vector<int64_t>& order,
                                             int batch, int steps,
                                             RateRange range, bool scaling);

// `steps` trial steps at a constant rate from a copy of `start`: the
// seconds a step takes (for planning within a time budget).
absl::StatusOr<double> TimeSteps(StepRunner& step, const TrainState& start,
                                 const std::vector<int64_t>& order, int batch,
                                 int steps, double lr, bool scaling);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_RANGE_TEST_H_
