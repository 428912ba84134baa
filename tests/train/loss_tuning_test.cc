// Losses tuned after scouting: Huber for heavy-tailed errors with delta
// from their deviation, focal gamma from the errors 1 − p_t — each firing
// on the case made for it, silent otherwise, with its numbers; the errors'
// moments as the scouting graph measures them; and a training run that
// switches to Huber, tests with it and keeps it in its snapshot.
#include "engine/expert/loss_tuning.h"

#include <cmath>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

dag::Dag Build(const std::string& head) {
  CheckResult r = CheckModel("m.wnm", head + R"(
model:input shape=[4];
model:output shape=[1];
model:layers dense(shape=[8], activation=relu),
    dense(shape=[1], activation=identity);
dense:layers matmul(w), add(b), activation();
)");
  if (!r.ok) {
    ADD_FAILURE() << r.rendered;
    return {};
  }
  return *r.dag;
}

std::vector<OutputSpec> Specs(const dag::Dag& dag) {
  absl::StatusOr<std::vector<OutputSpec>> specs =
      OutputSpecs(dag, Hyperparameters{}, nullptr);
  EXPECT_TRUE(specs.ok()) << specs.status();
  return *specs;
}

ErrorProbe Probe(double stddev, double kurtosis, int64_t count = 300) {
  return {.mean = 0.1, .stddev = stddev, .kurtosis = kurtosis, .count = count};
}

TEST(TuneLosses, HeavyTailedErrorsSwitchAChosenMseToHuber) {
  const dag::Dag dag = Build("model:name m;");
  std::vector<OutputSpec> specs = Specs(dag);
  ASSERT_EQ(specs[0].loss, LossKind::kMeanSquaredError);
  LossTuning t = TuneLosses(dag, specs, {{"model", Probe(1.4, 14.7)}});
  EXPECT_EQ(specs[0].loss, LossKind::kHuber);
  EXPECT_NEAR(specs[0].params.delta, 1.345 * 1.4, 1e-9);
  ASSERT_THAT(t.decisions, SizeIs(2));
  EXPECT_EQ(t.decisions[0].what, "loss HUL for 'model' instead of MSE");
  EXPECT_THAT(t.decisions[0].why, HasSubstr("kurtosis 14.7 over 300 values"));
  EXPECT_EQ(t.decisions[1].what, "delta 1.88 for 'model'");
  EXPECT_THAT(t.decisions[1].why, HasSubstr("1.345 σ of the errors"));
  ASSERT_THAT(t.tuned, SizeIs(1));
  EXPECT_EQ(t.tuned[0].loss, "HUL");
  EXPECT_NEAR(t.tuned[0].delta, 1.345 * 1.4, 1e-9);
}

TEST(TuneLosses, NormalErrorsOrADeclaredLossStay) {
  const dag::Dag dag = Build("model:name m;");
  std::vector<OutputSpec> specs = Specs(dag);
  // Normal errors (3), a long but legitimate tail (9), too few errors.
  for (const ErrorProbe& p :
       {Probe(1, 3.7), Probe(1, 9), Probe(1, 40, /*count=*/20)}) {
    LossTuning t = TuneLosses(dag, specs, {{"model", p}});
    EXPECT_EQ(specs[0].loss, LossKind::kMeanSquaredError);
    EXPECT_THAT(t.decisions, IsEmpty());
    EXPECT_THAT(t.tuned, IsEmpty());
  }
  const dag::Dag declared = Build("model:name m;\nmodel:loss MSE;");
  specs = Specs(declared);
  EXPECT_THAT(TuneLosses(declared, specs, {{"model", Probe(1, 40)}}).tuned,
              IsEmpty());
  EXPECT_EQ(specs[0].loss, LossKind::kMeanSquaredError);
}

TEST(TuneLosses, HuberDeltaUnlessTheModelGivesIt) {
  const dag::Dag huber = Build("model:name m;\nmodel:loss HUL;");
  std::vector<OutputSpec> specs = Specs(huber);
  LossTuning t = TuneLosses(huber, specs, {{"model", Probe(0.5, 3)}});
  EXPECT_NEAR(specs[0].params.delta, 0.6725, 1e-9);
  ASSERT_THAT(t.decisions, SizeIs(1));
  EXPECT_THAT(t.decisions[0].why, HasSubstr("σ 0.5 over 300 values"));
  const dag::Dag given = Build(
      "model:name m;\nmodel:loss HUL;\n"
      "model:delta 2.1;");
  specs = Specs(given);
  EXPECT_THAT(TuneLosses(given, specs, {{"model", Probe(0.5, 3)}}).tuned,
              IsEmpty());
  EXPECT_DOUBLE_EQ(specs[0].params.delta, 2.1);
}

TEST(TuneLosses, FocalGammaFromTheErrorsSpread) {
  const dag::Dag focal = Build("model:name m;\nmodel:loss FOL;");
  std::vector<OutputSpec> specs = Specs(focal);
  LossTuning alike = TuneLosses(focal, specs, {{"model", Probe(0.0, 2)}});
  EXPECT_DOUBLE_EQ(specs[0].params.gamma, 2);
  ASSERT_THAT(alike.decisions, SizeIs(1));
  EXPECT_EQ(alike.decisions[0].what, "gamma 2 for 'model'");
  TuneLosses(focal, specs, {{"model", Probe(0.15, 2)}});
  EXPECT_DOUBLE_EQ(specs[0].params.gamma, 3);
  TuneLosses(focal, specs, {{"model", Probe(0.6, 2)}});
  EXPECT_DOUBLE_EQ(specs[0].params.gamma, 4);
  const dag::Dag given = Build(
      "model:name m;\nmodel:loss FOL;\n"
      "model:gamma 1;");
  specs = Specs(given);
  EXPECT_THAT(TuneLosses(given, specs, {{"model", Probe(0.6, 2)}}).tuned,
              IsEmpty());
  EXPECT_DOUBLE_EQ(specs[0].params.gamma, 1);
}

TEST(TuneLosses, ARunsTunedLossesApplyAgain) {
  const dag::Dag dag = Build("model:name m;");
  std::vector<OutputSpec> specs = Specs(dag);
  ApplyTunedLosses(
      {{.output = "model", .loss = "HUL", .delta = 0.7, .gamma = 2}}, specs);
  EXPECT_EQ(specs[0].loss, LossKind::kHuber);
  EXPECT_DOUBLE_EQ(specs[0].params.delta, 0.7);
}

// y = the sum of the features, with every 25th target 30 deviations off:
// heavy-tailed errors at any start.
Dataset Contaminated() {
  testing::Noise noise(5);
  std::vector<float> features, targets;
  for (int i = 0; i < 400; ++i) {
    float y = 0;
    for (int f = 0; f < 4; ++f) {
      features.push_back(2 * noise());
      y += features.back();
    }
    targets.push_back(i % 25 == 0 ? y + 30 : y);
  }
  Dataset d = Dataset::Make("contaminated", 4, std::move(features), 1,
                            std::move(targets), false, {});
  EXPECT_TRUE(d.Split(70, 15, 15, 3).ok());
  return d;
}

TEST(TuneLosses, ARunSwitchesToHuberTestsWithItAndKeepsIt) {
  const dag::Dag dag = Build("model:name m;");
  const Dataset data = Contaminated();
  Hyperparameters h;
  h.epochs = 5;
  h.seeds = 3;
  auto backend = backends::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  absl::StatusOr<TrainResult> r = Train(dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  bool switched = false;
  for (const Decision& d : r->decisions) {
    switched |= d.what == "loss HUL for 'model' instead of MSE";
  }
  EXPECT_TRUE(switched);
  ASSERT_THAT(r->state.tuned_losses, SizeIs(1));
  const TunedLoss& tuned = r->state.tuned_losses[0];
  EXPECT_EQ(tuned.loss, "HUL");
  EXPECT_GT(tuned.delta, 0);
  // Testing the run with its tuned loss gives its own test loss; with the
  // model's MSE, another.
  absl::StatusOr<Evaluation> same =
      train::Test(dag, data, r->state.best, r->state.hyper, **backend,
                  r->state.tuned_losses);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_NEAR(same->loss, r->test.loss, 1e-6);
  absl::StatusOr<Evaluation> mse =
      train::Test(dag, data, r->state.best, r->state.hyper, **backend);
  ASSERT_TRUE(mse.ok()) << mse.status();
  EXPECT_GT(std::fabs(mse->loss - r->test.loss), 1e-3);
  // The snapshot keeps it.
  ModelSnapshot s;
  s.model_source = "model";
  s.state = r->state;
  s.shapes = ParameterShapes(dag);
  absl::StatusOr<std::string> bytes = EncodeModelSnapshot(s);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<ModelSnapshot> back = DecodeModelSnapshot(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_THAT(back->state.tuned_losses, SizeIs(1));
  EXPECT_EQ(back->state.tuned_losses[0].loss, "HUL");
  EXPECT_DOUBLE_EQ(back->state.tuned_losses[0].delta, tuned.delta);
  // Stopped after epoch 2 and resumed from its snapshot's bytes: the same
  // end as the run never stopped (the resumed run trains with Huber too).
  std::string saved;
  TrainCallbacks stop;
  stop.checkpoint = [&](const TrainState& state) {
    ModelSnapshot at;
    at.state = state;
    at.shapes = ParameterShapes(dag);
    saved = *EncodeModelSnapshot(at);
    return state.epoch < 2;
  };
  ASSERT_TRUE(Train(dag, data, h, **backend, stop).ok());
  absl::StatusOr<ModelSnapshot> at2 = DecodeModelSnapshot(saved);
  ASSERT_TRUE(at2.ok()) << at2.status();
  ASSERT_THAT(at2->state.tuned_losses, SizeIs(1));
  absl::StatusOr<TrainResult> resumed =
      Train(dag, data, at2->state.hyper, **backend, {}, &at2->state);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->state.params, r->state.params);
  EXPECT_NEAR(resumed->test.loss, r->test.loss, 1e-9);
}

}  // namespace
}  // namespace webnnm::train
