#include "engine/expert/lr_finder.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/base/status_macros.h"

namespace webnnm::train {
namespace {

using Clock = std::chrono::steady_clock;

// The smoothing of the loss curve (an exponential moving average, corrected
// for its start as Adam's moments are).
constexpr double kSmoothing = 0.95;
// The smoothed loss of the first steps is mostly one batch's: the minimum
// is looked for after them.
constexpr size_t kUntrusted = 10;
// The sweep stops once the smoothed loss exceeds its minimum this often.
constexpr double kRunaway = 4;

}  // namespace

RateRange RangeFor(OptimizerKind optimizer) {
  switch (optimizer) {
    case OptimizerKind::kAuto:
    case OptimizerKind::kLion:
    case OptimizerKind::kRLion:
      return {.lo = 1e-5, .hi = 1};
    case OptimizerKind::kNesterov:
    case OptimizerKind::kSgdm:
      return {.lo = 1e-4, .hi = 10};
    case OptimizerKind::kAdam:
    case OptimizerKind::kAdamW:
      // Adam's steps are about lr per weight too, but its useful rates
      // start lower (1e-4 to 1e-2 commonly; fastai sweeps 1e-7..10).
      return {.lo = 1e-6, .hi = 1};
  }
  return {};
}

double RangeDivisor(double sweep_epochs) {
  return std::clamp(sweep_epochs, kFewestDivisor, kMostDivisor);
}

RangeTestResult ChooseLearningRate(const std::vector<double>& rates,
                                   const std::vector<double>& losses,
                                   RateRange range, double divisor) {
  RangeTestResult r{.lo = range.lo, .hi = range.hi};
  double average = 0;
  bool any = false;
  for (size_t i = 0; i < rates.size() && i < losses.size(); ++i) {
    if (!std::isfinite(losses[i])) {
      r.diverged = true;
      break;
    }
    average = kSmoothing * average + (1 - kSmoothing) * losses[i];
    const double smoothed =
        average / (1 - std::pow(kSmoothing, static_cast<double>(i + 1)));
    if (i + 1 < kUntrusted && i + 1 < rates.size()) continue;
    if (!any) {
      r.first_loss = r.best_loss = smoothed;
      r.best_lr = rates[i];
      any = true;
    } else if (smoothed < r.best_loss) {
      r.best_loss = smoothed;
      r.best_lr = rates[i];
    } else if (smoothed > kRunaway * r.best_loss) {
      r.diverged = true;
      break;
    }
  }
  if (!any) r.best_lr = range.lo;
  r.divisor = divisor;
  r.lr = std::max(range.lo, r.best_lr / divisor);
  return r;
}

absl::StatusOr<RangeTestResult> RunRangeTest(StepRunner& step,
                                             const TrainState& start,
                                             const std::vector<int64_t>& order,
                                             int batch, int steps,
                                             RateRange range, double divisor,
                                             bool scaling) {
  TrainState trial = start;
  std::vector<double> rates, losses;
  const double growth = std::log(range.hi / range.lo) / std::max(1, steps - 1);
  const Clock::time_point begin = Clock::now();
  for (int k = 0; k < steps; ++k) {
    const double lr = range.lo * std::exp(growth * k);
    ASSIGN_OR_RETURN(StepRunner::Result result,
                     step.Step(order, static_cast<int64_t>(k) * batch, lr,
                               scaling, /*growth_interval=*/1 << 30, trial));
    // A step that dynamic scaling skipped says nothing about the rate.
    if (std::isnan(result.loss) && scaling && trial.loss_scale > 1) continue;
    rates.push_back(lr);
    losses.push_back(result.loss);
    if (!std::isfinite(result.loss)) break;
  }
  RangeTestResult r = ChooseLearningRate(rates, losses, range, divisor);
  r.steps = static_cast<int>(rates.size());
  r.seconds_per_step =
      std::chrono::duration<double>(Clock::now() - begin).count() /
      std::max<size_t>(1, rates.size());
  return r;
}

absl::StatusOr<double> TimeSteps(StepRunner& step, const TrainState& start,
                                 const std::vector<int64_t>& order, int batch,
                                 int steps, double lr, bool scaling) {
  TrainState trial = start;
  const Clock::time_point begin = Clock::now();
  for (int k = 0; k < steps; ++k) {
    RETURN_IF_ERROR(step.Step(order, static_cast<int64_t>(k) * batch, lr,
                              scaling, /*growth_interval=*/1 << 30, trial)
                        .status());
  }
  return std::chrono::duration<double>(Clock::now() - begin).count() /
         std::max(1, steps);
}

}  // namespace webnnm::train
