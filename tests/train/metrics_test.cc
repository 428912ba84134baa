// A test's metrics against figures worked out by hand.
#include "engine/train/metrics.h"

#include <cmath>

#include <gtest/gtest.h>

namespace webnnm::train {
namespace {

// Three classes, ten samples: true/predicted pairs chosen so that every
// class has a different precision and recall.
TEST(Metrics, ClassesAgainstAHandMadeConfusionMatrix) {
  ClassificationAccumulator acc({"a", "b", "c"}, {.units = 3});
  const int pairs[][2] = {{0, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 1},
                          {1, 2}, {2, 2}, {2, 0}, {2, 2}, {2, 2}};
  for (const auto& [truth, predicted] : pairs) {
    float scores[3] = {0.1f, 0.1f, 0.1f};
    scores[predicted] = 0.8f;
    acc.Add(scores, truth);
  }
  ClassificationMetrics m = acc.Finish();
  EXPECT_EQ(m.classes, (std::vector<std::string>{"a", "b", "c"}));
  // Rows: true a, b, c; columns: predicted a, b, c.
  EXPECT_EQ(m.confusion, (std::vector<std::vector<int64_t>>{
                             {2, 1, 0}, {0, 2, 1}, {1, 0, 3}}));
  EXPECT_DOUBLE_EQ(m.accuracy, 0.7);
  // a: predicted 3 times, right 2 of them; present 3 times.
  EXPECT_DOUBLE_EQ(m.precision[0], 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.recall[0], 2.0 / 3);
  // b: predicted 3 (2 right), present 3; c: predicted 4 (3 right), present 4.
  EXPECT_DOUBLE_EQ(m.precision[1], 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.recall[1], 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.precision[2], 3.0 / 4);
  EXPECT_DOUBLE_EQ(m.recall[2], 3.0 / 4);
  EXPECT_DOUBLE_EQ(m.f1[2], 0.75);
}

TEST(Metrics, AClassNeverPredictedHasPrecisionZero) {
  ClassificationAccumulator acc({"x", "y"}, {.units = 2});
  const float x[2] = {1, 0};
  acc.Add(x, 0);
  acc.Add(x, 1);  // y, predicted x
  ClassificationMetrics m = acc.Finish();
  EXPECT_DOUBLE_EQ(m.precision[0], 0.5);
  EXPECT_DOUBLE_EQ(m.recall[0], 1.0);
  EXPECT_DOUBLE_EQ(m.precision[1], 0.0);  // never predicted
  EXPECT_DOUBLE_EQ(m.recall[1], 0.0);
  EXPECT_DOUBLE_EQ(m.f1[1], 0.0);
  EXPECT_DOUBLE_EQ(m.f1[0], 2 * 0.5 * 1.0 / 1.5);
}

TEST(Metrics, OneUnitIsTwoClassesByItsThreshold) {
  ClassificationAccumulator probabilities({}, {.units = 1, .threshold = 0.5});
  const float p[] = {0.7f, 0.2f, 0.5f};
  probabilities.Add(&p[0], 1);
  probabilities.Add(&p[1], 0);
  probabilities.Add(&p[2], 0);  // 0.5 counts as 1
  ClassificationMetrics m = probabilities.Finish();
  EXPECT_EQ(m.classes, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(m.confusion, (std::vector<std::vector<int64_t>>{{1, 1}, {0, 1}}));
  ClassificationAccumulator logits({"no", "yes"}, {.units = 1, .threshold = 0});
  const float z = -0.1f;
  logits.Add(&z, 0);
  EXPECT_DOUBLE_EQ(logits.Finish().accuracy, 1.0);
}

TEST(Metrics, RegressionAgainstHandWorkedErrors) {
  RegressionAccumulator acc(2);
  // Unit 0: y = 1, 2, 3, predictions 1.5, 2, 2 (errors 0.5, 0, -1).
  // Unit 1: a constant target 5, predicted exactly.
  const float rows[][4] = {{1.5f, 5, 1, 5}, {2, 5, 2, 5}, {2, 5, 3, 5}};
  for (const auto& row : rows) acc.Add(&row[0], &row[2]);
  RegressionMetrics m = acc.Finish();
  EXPECT_DOUBLE_EQ(m.mae[0], 0.5);
  EXPECT_DOUBLE_EQ(m.rmse[0], std::sqrt(1.25 / 3));
  // SS_res 1.25, SS_tot around the mean 2: 1 + 0 + 1 = 2.
  EXPECT_DOUBLE_EQ(m.r2[0], 1 - 1.25 / 2);
  EXPECT_DOUBLE_EQ(m.mae[1], 0);
  EXPECT_DOUBLE_EQ(m.r2[1], 1.0);  // constant and exact
  RegressionAccumulator off(1);
  const float y = 4, wrong = 3;
  off.Add(&wrong, &y);
  off.Add(&wrong, &y);
  EXPECT_DOUBLE_EQ(off.Finish().r2[0], 0.0);  // constant, not exact
}

TEST(Metrics, LargeTargetsKeepTheirPrecision) {
  RegressionAccumulator acc(1);
  const float ys[] = {1e6f + 1, 1e6f + 2, 1e6f + 3};
  const float ps[] = {1e6f + 1, 1e6f + 2, 1e6f + 4};
  for (int i = 0; i < 3; ++i) acc.Add(&ps[i], &ys[i]);
  EXPECT_NEAR(acc.Finish().r2[0], 1 - 1.0 / 2, 1e-9);
}

}  // namespace
}  // namespace webnnm::train
