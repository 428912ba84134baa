// The learning-rate range test's rule on made-up loss curves, and the
// sweep on a real model (the loss falls, then runs away).
#include "engine/expert/lr_finder.h"

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

TEST(RangeTest, ChoosesTheSmoothedMinimumOverTheDivisor) {
  const RateRange range{.lo = 1e-5, .hi = 1};
  const std::vector<double> rates = Rates(kRangeTestSteps, range);
  // A valley at rates[120], about 1e-2: the loss falls as log rate grows,
  // then climbs steeply.
  std::vector<double> losses;
  for (int k = 0; k < kRangeTestSteps; ++k) {
    losses.push_back(k <= 120 ? 2.0 - 1.5 * k / 120.0 : 0.5 + 0.5 * (k - 120));
  }
  RangeTestResult r = ChooseLearningRate(rates, losses, range, 10);
  // The smoothing lags by a few steps; the minimum is near 1e-2.
  EXPECT_GT(r.best_lr, 0.5e-2);
  EXPECT_LT(r.best_lr, 2e-2);
  EXPECT_DOUBLE_EQ(r.lr, r.best_lr / 10);
  EXPECT_DOUBLE_EQ(r.divisor, 10);
  EXPECT_DOUBLE_EQ(ChooseLearningRate(rates, losses, range, 2).lr,
                   r.best_lr / 2);
  EXPECT_TRUE(r.diverged);       // 4 times the minimum is reached
  EXPECT_GT(r.first_loss, 1.8);  // smoothed over the first ten steps
  EXPECT_LT(r.best_loss, 0.8);
}

TEST(RangeTest, AMinimumAtTheTopTakesTheSteepestDescentAndSaysSo) {
  const RateRange range{.lo = 1e-5, .hi = 1};
  const std::vector<double> rates = Rates(kRangeTestSteps, range);
  // The loss falls fastest around step 80 (about 1e-3) and is still
  // falling, slowly, at the top: no rate was too high.
  std::vector<double> losses;
  for (int k = 0; k < kRangeTestSteps; ++k) {
    losses.push_back(1.0 / (1.0 + std::exp((k - 80) / 8.0)) + 0.2 -
                     0.0005 * k);
  }
  RangeTestResult r = ChooseLearningRate(rates, losses, range, 10);
  EXPECT_FALSE(r.diverged);
  EXPECT_TRUE(r.at_edge);
  EXPECT_GE(r.best_lr, range.hi / 2);
  EXPECT_GT(r.steep_lr, rates[70]);
  EXPECT_LT(r.steep_lr, rates[100]);  // the smoothing lags a few steps
  EXPECT_DOUBLE_EQ(r.lr, r.steep_lr);  // not best_lr / 10, about 0.1
  const Decision d = RangeTestDecision(r, OptimizerKind::kRLion, 30);
  EXPECT_NE(d.why.find("still falling at the top"), std::string::npos)
      << d.why;
  const std::string w = RangeTestEdgeWarning(r);
  EXPECT_NE(w.find("found no rate too high"), std::string::npos) << w;
  EXPECT_NE(w.find("of up to 1"), std::string::npos) << w;
  // A minimum at the top after which the loss ran away is a minimum.
  losses.back() = NAN;
  RangeTestResult ran = ChooseLearningRate(rates, losses, range, 10);
  EXPECT_TRUE(ran.diverged);
  EXPECT_FALSE(ran.at_edge);
  EXPECT_DOUBLE_EQ(ran.lr, ran.best_lr / 10);
}

TEST(RangeTest, ANonFiniteLossEndsTheCurve) {
  const RateRange range{.lo = 1e-4, .hi = 10};
  const std::vector<double> rates = Rates(50, range);
  std::vector<double> losses(50, 1.0);
  for (int k = 0; k < 30; ++k) losses[k] = 1.0 - 0.01 * k;
  losses[30] = NAN;
  RangeTestResult r = ChooseLearningRate(rates, losses, range, 10);
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
  RangeTestResult r = ChooseLearningRate(rates, losses, range, 10);
  EXPECT_LT(r.best_lr, 1e-4);  // the first trusted step's
  EXPECT_DOUBLE_EQ(r.lr, 1e-5);
  // Nothing at all (every step skipped).
  r = ChooseLearningRate({}, {}, range, 10);
  EXPECT_DOUBLE_EQ(r.lr, 1e-5);
}

// The divisor is the epochs the sweep spans, within [2, 10]: a tenth on
// a small set the sweep runs over many times, half on a large one.
TEST(RangeTest, TheDivisorFollowsTheEpochsSwept) {
  EXPECT_DOUBLE_EQ(RangeDivisor(35), 10);    // iris: 200 steps of 16 of 90
  EXPECT_DOUBLE_EQ(RangeDivisor(5.9), 5.9);  // digits
  EXPECT_DOUBLE_EQ(RangeDivisor(0.14), 2);   // Fashion-MNIST
}

TEST(RangeTest, Ranges) {
  EXPECT_LT(RangeFor(OptimizerKind::kRLion).hi,
            RangeFor(OptimizerKind::kSgdm).hi);
}

}  // namespace
}  // namespace webnnm::train
