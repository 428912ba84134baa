// Batch normalization in training (ERRATA 15b): the step normalises with
// the batch's statistics over the rows with data and moves the running
// statistics by momentum 0.9; evaluation and snapshots use the running
// ones.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/train/graphs.h"
#include "engine/train/trainer.h"
#include "tests/train/run_graph.h"

namespace webnnm::train {
namespace {

using testing::GraphRunner;
using testing::Values;

constexpr char kNormalized[] = R"(
model:name normalized;
model:input shape=[2];
model:output shape=[1];
model:loss MSE;
model:layers
    batchNormalization(s, b),
    dense(shape=[1]);
dense:layers matmul(w), add(b);
)";

TEST(BatchNormalization, TrainsOnTheBatchStatisticsOfRowsWithData) {
  CheckResult check = CheckModel("bn.wnm", kNormalized);
  ASSERT_TRUE(check.ok) << check.rendered;
  StepConfig config;
  config.batch = 4;
  config.outputs = {{.name = "model", .loss = LossKind::kMeanSquaredError}};
  config.optimizer = OptimizerKind::kSgdm;
  auto graph = BuildTrainingGraph(*check.dag, config);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto runner = GraphRunner::Compile(*graph);
  ASSERT_TRUE(runner.ok()) << runner.status();
  // Three rows with data; the fourth is padding with huge values.
  Values in = {{"model", {1, 10, 2, 20, 3, 60, 1e6, -1e6}},
               {"target:model", {0, 0, 0, 0}},
               {"in:mask", {1, 1, 1, 0}},
               {"runningMean1", {0, 0}},
               {"runningVariance1", {1, 1}},
               {"s1", {1, 1}},
               {"b1", {0, 0}},
               {"w1", {0.5, 0.5}},
               {"b2", {0}},
               {"in:lr", {0.01}},
               {"in:scale", {1}},
               {"in:clipMu", {0}},
               {"in:clipSigma", {0}},
               {"in:clipK", {4}},
               {"in:clipFirst", {1}}};
  for (const char* p : {"s1", "b1", "w1", "b2"}) {
    in[std::string("momentum:") + p] = std::vector<double>(in[p].size(), 0.0);
  }
  auto out = runner->Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  // Means 2 and 30, biased variances 2/3 and 1400/3, of the three rows.
  const std::vector<double>& mean = (*out)["new:runningMean1"];
  const std::vector<double>& var = (*out)["new:runningVariance1"];
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_NEAR(mean[0], 0.1 * 2, 1e-5);
  EXPECT_NEAR(mean[1], 0.1 * 30, 1e-4);
  EXPECT_NEAR(var[0], 0.9 + 0.1 * (2.0 / 3), 1e-5);
  EXPECT_NEAR(var[1], 0.9 + 0.1 * (1400.0 / 3), 1e-3);
}

TEST(BatchNormalization, TheLoopKeepsTheRunningStatistics) {
  CheckResult check = CheckModel("bn.wnm", kNormalized);
  ASSERT_TRUE(check.ok);
  std::vector<float> features, targets;
  for (int i = 0; i < 200; ++i) {
    float a = static_cast<float>(i % 17), c = static_cast<float>(i % 5);
    features.push_back(100 + 10 * a);  // mean ~180, far from 0
    features.push_back(c);
    targets.push_back(0.1f * a - 0.3f * c);
  }
  Dataset data = Dataset::Make("lin", 2, features, 1, targets, false, {});
  ASSERT_TRUE(data.Split(80, 10, 10, 1).ok());
  Hyperparameters h;
  h.epochs = 30;
  h.seeds = 1;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.05;
  auto backend = backends::CreateBackend("cpu");
  auto r = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<float>& mean = r->state.params.at("runningMean1");
  const std::vector<float>& var = r->state.params.at("runningVariance1");
  EXPECT_NEAR(mean[0], 180, 15);  // the features' mean
  EXPECT_NEAR(mean[1], 2, 0.5);
  EXPECT_NEAR(var[0], 100 * 24, 700);  // 10^2 x var(0..16) = 2400
  EXPECT_NEAR(var[1], 2, 0.5);
  // The test uses them: its loss is that of a model that learned.
  EXPECT_LT(r->test.loss, 0.05);
}

}  // namespace
}  // namespace webnnm::train
