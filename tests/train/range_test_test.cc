// The learning-rate range test's rule on made-up loss curves, and the
// sweep on a real model (the loss falls, then runs away).
#include "engine/train/range_test.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace webnnm::train {
namespace {

std::vector<double> Rates(int n, RateRange r) {
  std::vector<double> rates;
  for (int k = 0; k < n; ++k) {
    rates.push_back(r.lo * std::pow(r.hi / r.lo, k / double(n - 1)));
  }
  return rates;
}

TEST(RangeTest, ChoosesATenthOfTheSmoothedMinimum) {
  const RateRange range{.lo = 1e-5, .hi = 1};
  const std::vector<double> rates = Rates(101, range);
  // A valley at rates[60] = 1e-2: the loss falls as log rate grows, then
  // climbs steeply.
  std::vector<double> losses;
  for (int k = 0; k <= 100; ++k) {
    losses.push_back(k <= 60 ? 2.0 - 1.5 * k / 60.0 : 0.5 + 0.5 * (k - 60));
  }
  RangeTestResult r = ChooseLearningRate(rates, losses, range);
  // The smoothing lags by a few steps; the minimum is near 1e-2.
  EXPECT_GT(r.best_lr, 0.5e-2);
  EXPECT_LT(r.best_lr, 2e-2);
  EXPECT_DOUBLE_EQ(r.lr, r.best_lr / kRangeDivisor);
  EXPECT_TRUE(r.diverged);  // 4 times the minimum is reached
  EXPECT_NEAR(r.first_loss, 2.0, 1e-9);
  EXPECT_LT(r.best_loss, 0.8);
}

TEST(RangeTest, ANonFiniteLossEndsTheCurve) {
  const RateRange range{.lo = 1e-4, .hi = 10};
  const std::vector<double> rates = Rates(50, range);
  std::vector<double> losses(50, 1.0);
  for (int k = 0; k < 30; ++k) losses[k] = 1.0 - 0.01 * k;
  losses[30] = NAN;
  RangeTestResult r = ChooseLearningRate(rates, losses, range);
  EXPECT_TRUE(r.diverged);
  EXPECT_LE(r.best_lr, rates[29]);
  EXPECT_GT(r.best_lr, rates[20]);
}

TEST(RangeTest, NeverBelowTheSweepsStart) {
  const RateRange range{.lo = 1e-5, .hi = 1};
  const std::vector<double> rates = Rates(50, range);
  // Rising from the first step: the lowest rate is all there is.
  std::vector<double> losses;
  for (int k = 0; k < 50; ++k) losses.push_back(1.0 + k);
  RangeTestResult r = ChooseLearningRate(rates, losses, range);
  EXPECT_DOUBLE_EQ(r.best_lr, 1e-5);
  EXPECT_DOUBLE_EQ(r.lr, 1e-5);
  // Nothing at all (every step skipped).
  r = ChooseLearningRate({}, {}, range);
  EXPECT_DOUBLE_EQ(r.lr, 1e-5);
}

TEST(RangeTest, StepsAndRanges) {
  EXPECT_EQ(RangeTestSteps(6), 50);
  EXPECT_EQ(RangeTestSteps(60), 120);
  EXPECT_EQ(RangeTestSteps(700), 200);
  EXPECT_LT(RangeFor(OptimizerKind::kRLion).hi,
            RangeFor(OptimizerKind::kSgdm).hi);
}

}  // namespace
}  // namespace webnnm::train
