// The training graph end to end on the CPU backend: a model written in the
// language trains to its target; padded rows change nothing; an overflowing
// step is skipped.
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/train/freeze.h"
#include "engine/train/graphs.h"
#include "engine/train/init.h"
#include "tests/train/run_graph.h"

namespace webnnm::train {
namespace {

using testing::GraphRunner;
using testing::Values;

constexpr char kLinear[] = R"(
model:name linear;
model:input shape=[2];
model:output shape=[1];
model:loss MSE;
model:layers dense(shape=[1]);
dense:layers matmul(w), add(b);
)";

struct Fixture {
  dag::Dag dag;
  GraphRunner runner;
  Values state;  // parameters and momenta by input name
};

absl::StatusOr<Fixture> Make(const StepConfig& config, const char* text) {
  CheckResult check = CheckModel("test.wnm", text);
  if (!check.ok) return absl::InvalidArgumentError(check.rendered);
  auto graph = BuildTrainingGraph(*check.dag, config);
  if (!graph.ok()) return graph.status();
  auto runner = GraphRunner::Compile(*graph);
  if (!runner.ok()) return runner.status();
  Fixture f{*check.dag, *std::move(runner), {}};
  uint32_t index = 0;
  for (const auto& [name, id] : TrainableParameters(f.dag)) {
    const ir::Node& node = f.dag.graph.node(id);
    int64_t count = 1;
    for (int64_t d : f.dag.graph.value(node.outputs[0]).type.shape) count *= d;
    std::vector<float> init = InitialValues(node.parameter, count, 7, index++);
    f.state[name] = std::vector<double>(init.begin(), init.end());
    f.state["momentum:" + name] = std::vector<double>(count, 0.0);
  }
  return f;
}

// One step: feeds the batch and scalars, then carries the new parameters
// and momenta over.
absl::StatusOr<Values> Step(Fixture& f, const Values& batch, double lr,
                            double scale = 1.0) {
  Values inputs = f.state;
  for (const auto& [k, v] : batch) inputs[k] = v;
  inputs["in:lr"] = {lr};
  inputs["in:scale"] = {scale};
  inputs["in:clipMu"] = {0};
  inputs["in:clipSigma"] = {0};
  inputs["in:clipK"] = {4};
  inputs["in:clipFirst"] = {1};
  auto out = f.runner.Run(inputs);
  if (!out.ok()) return out.status();
  for (auto& [name, values] : f.state) {
    std::string key = name.rfind("momentum:", 0) == 0
                          ? "newMomentum:" + name.substr(9)
                          : "new:" + name;
    values = (*out)[key];
  }
  return out;
}

// y = 2 x0 - 3 x1 + 1 on a fixed pseudo-random batch of 8 (rows past
// `rows` padded with garbage and masked out).
Values LinearBatch(int step, int rows) {
  Values batch;
  for (int r = 0; r < 8; ++r) {
    double x0 = std::sin(1.7 * (step * 8 + r)),
           x1 = std::cos(2.3 * (step * 8 + r));
    bool real = r < rows;
    batch["model"].push_back(real ? x0 : 1e3);
    batch["model"].push_back(real ? x1 : -1e3);
    batch["target:model"].push_back(real ? 2 * x0 - 3 * x1 + 1 : 1e6);
    batch["in:mask"].push_back(real ? 1 : 0);
  }
  return batch;
}

OutputSpec Spec(const std::string& name, LossKind loss) {
  OutputSpec spec;
  spec.name = name;
  spec.loss = loss;
  return spec;
}

StepConfig LinearConfig() {
  StepConfig config;
  config.batch = 8;
  config.outputs = {Spec("model", LossKind::kMeanSquaredError)};
  config.optimizer = OptimizerKind::kSgdm;
  config.optimizer_params = DefaultOptimizerParams(OptimizerKind::kSgdm);
  return config;
}

TEST(TrainingGraph, LearnsALinearFunction) {
  auto f = Make(LinearConfig(), kLinear);
  ASSERT_TRUE(f.ok()) << f.status();
  double loss = 0;
  for (int step = 0; step < 300; ++step) {
    auto out = Step(*f, LinearBatch(step, 8), 0.05);
    ASSERT_TRUE(out.ok()) << out.status();
    loss = (*out)["loss"][0];
    ASSERT_EQ((*out)["finite"][0], 1);
  }
  EXPECT_LT(loss, 1e-3);
  EXPECT_NEAR(f->state["w1"][0], 2, 0.05);
  EXPECT_NEAR(f->state["w1"][1], -3, 0.05);
  EXPECT_NEAR(f->state["b1"][0], 1, 0.05);
}

TEST(TrainingGraph, PaddedRowsCountForNothing) {
  auto f = Make(LinearConfig(), kLinear);
  ASSERT_TRUE(f.ok()) << f.status();
  double loss = 0;
  for (int step = 0; step < 300; ++step) {
    auto out = Step(*f, LinearBatch(step, 5), 0.05);
    ASSERT_TRUE(out.ok()) << out.status();
    loss = (*out)["loss"][0];
  }
  EXPECT_LT(loss, 1e-3);  // the 1e6 targets of padded rows did not leak in
}

TEST(TrainingGraph, SkipsAStepWhoseGradientsOverflow) {
  auto f = Make(LinearConfig(), kLinear);
  ASSERT_TRUE(f.ok()) << f.status();
  Values before = f->state;
  auto out = Step(*f, LinearBatch(0, 8), 0.05, /*scale=*/3e38);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["finite"][0], 0);
  EXPECT_EQ(f->state["w1"], before["w1"]);
  EXPECT_EQ(f->state["momentum:w1"], before["momentum:w1"]);
  // A moderate scale changes nothing but the arithmetic.
  auto scaled = Step(*f, LinearBatch(0, 8), 0.05, /*scale=*/1024);
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  EXPECT_EQ((*scaled)["finite"][0], 1);
}

// Without loss scaling the step never reads "in:scale" (a scale of 3
// fed to it changes nothing) and takes the same steps, to the bit, as the
// scaled graph fed a scale of 1: x·(1/1) is x.
TEST(TrainingGraph, WithoutLossScalingTheSameStepsAndNoScale) {
  for (Clipping clipping :
       {Clipping::kOff, Clipping::kGlobal, Clipping::kAgc}) {
    SCOPED_TRACE(static_cast<int>(clipping));
    StepConfig scaled = LinearConfig();
    scaled.clipping = clipping;
    StepConfig plain = scaled;
    plain.loss_scaling = false;
    auto count_reciprocals = [](const StepConfig& config) {
      CheckResult check = CheckModel("test.wnm", kLinear);
      auto graph = BuildTrainingGraph(*check.dag, config);
      EXPECT_TRUE(graph.ok()) << graph.status();
      int n = 0;
      if (graph.ok()) {
        for (const ir::Node& node : graph->nodes()) {
          n += !node.dead && node.kind == ir::NodeKind::kOp &&
               node.op->kind == ir::OpKind::kReciprocal;
        }
      }
      return n;
    };
    EXPECT_GT(count_reciprocals(scaled), 0);
    EXPECT_EQ(count_reciprocals(plain), 0);
    auto a = Make(scaled, kLinear);
    auto b = Make(plain, kLinear);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    for (int step = 0; step < 30; ++step) {
      auto x = Step(*a, LinearBatch(step, 6), 0.05, /*scale=*/1);
      auto y = Step(*b, LinearBatch(step, 6), 0.05, /*scale=*/3);
      ASSERT_TRUE(x.ok()) << x.status();
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ((*x)["loss"], (*y)["loss"]) << "step " << step;
    }
    EXPECT_EQ(a->state, b->state);
  }
}

TEST(TrainingGraph, EveryOptimizerAndClippingModeTrains) {
  for (OptimizerKind kind : {OptimizerKind::kLion, OptimizerKind::kRLion,
                             OptimizerKind::kNesterov, OptimizerKind::kSgdm}) {
    for (Clipping clipping :
         {Clipping::kOff, Clipping::kGlobal, Clipping::kAgc}) {
      StepConfig config = LinearConfig();
      config.optimizer = kind;
      config.optimizer_params = DefaultOptimizerParams(kind);
      config.optimizer_params.weight_decay = 0;
      config.clipping = clipping;
      auto f = Make(config, kLinear);
      ASSERT_TRUE(f.ok()) << f.status();
      double lr = kind == OptimizerKind::kLion || kind == OptimizerKind::kRLion
                      ? 0.01
                      : 0.05;
      double first = 0, last = 0;
      for (int step = 0; step < 400; ++step) {
        auto out = Step(*f, LinearBatch(step, 8), lr);
        ASSERT_TRUE(out.ok()) << out.status();
        if (step == 0) first = (*out)["loss"][0];
        last = (*out)["loss"][0];
      }
      EXPECT_LT(last, first * 0.05)
          << OptimizerName(kind) << " clipping " << static_cast<int>(clipping);
    }
  }
}

constexpr char kThreeLayers[] = R"(
model:input shape=[2];
model:output shape=[1];
model:layers dense(shapes=[[6], [6]], activation=tanh),
    dense(shape=[1], activation=identity);
dense:layers matmul(w), add(b), activation();
)";

TEST(Freeze, MultipliersGrowWithDepthInFiveBuckets) {
  CheckResult check = CheckModel("f.wnm", kThreeLayers);
  ASSERT_TRUE(check.ok) << check.rendered;
  EXPECT_TRUE(FreezeMultipliers(*check.dag, 0).empty());
  std::map<std::string, double> half = FreezeMultipliers(*check.dag, 0.5);
  ASSERT_EQ(half.size(), 6u);
  EXPECT_EQ(half["w1"], 0);  // the first layer is frozen
  EXPECT_EQ(half["b1"], 0);
  EXPECT_GE(half["w3"], 0.9);  // the last layer learns (nearly) at full rate
  EXPECT_EQ(half["b3"], 1);
  EXPECT_LE(half["w2"], half["w3"]);
  for (const auto& [name, m] : half) {
    bool bucket = false;
    for (int k = 0; k <= 4; ++k) {
      bucket |= std::fabs(m - std::sin(1.5707963267948966 * k / 4)) < 1e-12;
    }
    EXPECT_TRUE(bucket) << name << " " << m;
  }
  for (const auto& [name, m] : FreezeMultipliers(*check.dag, 1.0)) {
    EXPECT_EQ(m, 0) << name;
  }
}

TEST(Freeze, AFrozenModelUpdatesOnlyItsLastLayers) {
  CheckResult check = CheckModel("f.wnm", kThreeLayers);
  ASSERT_TRUE(check.ok) << check.rendered;
  StepConfig config = LinearConfig();
  config.lrm = FreezeMultipliers(*check.dag, 0.5);
  auto f = Make(config, kThreeLayers);
  ASSERT_TRUE(f.ok()) << f.status();
  Values before = f->state;
  for (int step = 0; step < 20; ++step) {
    auto out = Step(*f, LinearBatch(step, 8), 0.05);
    ASSERT_TRUE(out.ok()) << out.status();
  }
  for (const auto& [name, m] : config.lrm) {
    if (m == 0) {
      EXPECT_EQ(f->state[name], before[name]) << name << " is frozen";
    } else {
      EXPECT_NE(f->state[name], before[name]) << name << " should learn";
    }
  }
}

TEST(EvaluationGraph, CountsLossesAndCorrectRows) {
  constexpr char kClassifier[] = R"(
model:input shape=[2];
model:output shape=[3];
model:loss CCE;
model:layers dense(shape=[3], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";
  CheckResult check = CheckModel("c.wnm", kClassifier);
  ASSERT_TRUE(check.ok) << check.rendered;
  auto graph = BuildEvaluationGraph(
      *check.dag, 4, 1, false,
      {Spec("model", LossKind::kCategoricalCrossEntropy)});
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto runner = GraphRunner::Compile(*graph);
  ASSERT_TRUE(runner.ok()) << runner.status();
  // w = identity-ish: class = argmax of [x0, x1, 0].
  auto out =
      runner->Run({{"w1", {1, 0, 0, 0, 1, 0}},
                   {"b1", {0, 0, 0}},
                   {"model", {2, 0, 0, 2, -1, -1, 5, 0}},
                   {"target:model", {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0}},
                   {"in:mask", {1, 1, 1, 0}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["lossCount:model"][0], 3);
  EXPECT_EQ((*out)["correct:model"][0], 3);  // rows 0, 1, 2 right; 3 masked
  EXPECT_GT((*out)["lossSum:model"][0], 0);
}

}  // namespace
}  // namespace webnnm::train
