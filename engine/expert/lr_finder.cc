#include "engine/expert/lr_finder.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

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
// The steepest descent is measured over this many steps either side.
constexpr size_t kSlopeWindow = 10;

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
  r.rates = rates;
  r.losses = losses;
  // The steepest descent of the smoothed curve before its minimum.
  std::vector<double> smoothed;
  average = 0;
  for (size_t i = 0; i < rates.size() && i < losses.size(); ++i) {
    if (!std::isfinite(losses[i])) break;
    average = kSmoothing * average + (1 - kSmoothing) * losses[i];
    smoothed.push_back(average /
                       (1 - std::pow(kSmoothing, static_cast<double>(i + 1))));
  }
  double steepest = 0;
  for (size_t i = kUntrusted + kSlopeWindow; i + kSlopeWindow < smoothed.size();
       ++i) {
    if (rates[i] >= r.best_lr) break;
    const double run = std::log(rates[i + kSlopeWindow]) -
                       std::log(rates[i - kSlopeWindow]);
    const double slope =
        (smoothed[i + kSlopeWindow] - smoothed[i - kSlopeWindow]) / run;
    if (slope < steepest) {
      steepest = slope;
      r.steep_lr = rates[i];
    }
  }
  // A minimum after which the loss ran away is one, wherever it is.
  r.at_edge = any && !r.diverged && r.best_lr >= range.hi / 2;
  if (r.at_edge && r.steep_lr > 0 && r.steep_lr < r.lr) {
    r.lr = std::max(range.lo, r.steep_lr);
  }
  return r;
}

Decision RangeTestDecision(const RangeTestResult& r, OptimizerKind optimizer,
                           double sweep_epochs) {
  std::string chosen;
  if (r.at_edge && r.lr == std::max(r.lo, r.steep_lr) &&
      r.lr < r.best_lr / r.divisor) {
    chosen = StrCat("it was still falling at the top of the trial, so the "
                    "rate where it fell fastest, ",
                    FormatNumber(r.lr), ", is the maximum of the schedule");
  } else {
    chosen = StrCat(
        "a whole run needs less than the trial's best, so that divided by ",
        FormatNumber(r.divisor),
        " is the maximum of the schedule (the trial spanned ",
        FormatNumber(sweep_epochs),
        " epochs of the training set: the divisor is that within ",
        FormatNumber(kFewestDivisor), "..", FormatNumber(kMostDivisor), ")");
  }
  return {StrCat("lr ", FormatNumber(r.lr), " for ", OptimizerName(optimizer)),
          StrCat("the learning rate, from a short trial (a range test): the "
                 "rate grew from ",
                 FormatNumber(r.lo), " to ", FormatNumber(r.hi), " over ",
                 r.steps, " steps from the scouted start",
                 "; the smoothed loss fell from ", FormatNumber(r.first_loss),
                 " to its lowest, ", FormatNumber(r.best_loss), ", at ",
                 FormatNumber(r.best_lr),
                 r.diverged ? " and then ran away" : "", "; ", chosen,
                 ". Give --lr to choose the rate yourself")};
}

std::string RangeTestEdgeWarning(const RangeTestResult& r) {
  return StrCat(
      "the learning-rate trial found no rate too high: its loss was still "
      "falling at the top of its sweep (lowest, ",
      FormatNumber(r.best_loss), ", at ", FormatNumber(r.best_lr),
      " of up to ", FormatNumber(r.hi),
      "), which on a small set often means it memorized the rows it saw "
      "again and again; the run takes ",
      FormatNumber(r.lr),
      ". If the validation loss rises early or the run diverges, give a "
      "lower --lr (such as ",
      FormatNumber(r.lr / 10), ")");
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
