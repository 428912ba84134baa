// A model with two outputs (a class and a score from a shared layer)
// trains on a dataset with targets for each: with lossWeights 'auto' the
// expert system learns uncertainty weights s_i, which move from 0 and weigh
// the outputs' losses; fixed lossWeights are parsed and checked.
#include <cmath>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/expert/expert.h"
#include "engine/train/checkpoint.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

constexpr char kTwoTasks[] = R"(
model:name two-tasks;
x:input shape=[4];
label:output shape=[3];
label:loss CCE;
label:layers
    dense(x, shape=[16], activation=relu, name=shared),
    dense(shape=[3], activation=softmax);
score:output shape=[1];
score:loss MSE;
score:layers
    dense(shared, shape=[1], activation=identity);
dense:layers
    matmul(w),
    add(b),
    activation();
)";

// Blobs by class, and a score that is a linear function of the features.
Dataset TwoTaskData() {
  Dataset d = testing::Blobs(300, 4, 3, 99);
  testing::Noise noise(7);
  std::vector<float> scores;
  for (int64_t i = 0; i < d.count(); ++i) {
    const float* f = d.features(i);
    scores.push_back(0.8f * f[0] - 0.5f * f[3] + 0.05f * noise());
  }
  d.SetFirstOutput("label");
  EXPECT_TRUE(d.AddTargets({.output = "score",
                            .width = 1,
                            .classification = false,
                            .values = scores})
                  .ok());
  EXPECT_TRUE(d.Split(60, 20, 20, 2).ok());
  return d;
}

Hyperparameters Quick() {
  Hyperparameters h;
  h.epochs = 40;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.05;
  return h;
}

TEST(MultiOutput, TrainsWithLearnedUncertaintyWeights) {
  CheckResult check = CheckModel("two.wnm", kTwoTasks);
  ASSERT_TRUE(check.ok) << check.rendered;
  Dataset data = TwoTaskData();
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, Quick(), **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  bool decided = false;
  for (const Decision& d : r->decisions) {
    decided |= d.what == "learned uncertainty loss weights";
  }
  EXPECT_TRUE(decided);
  // The weights s_i were trained: they moved from their start at 0, and
  // stay within their bounds.
  const Params& p = r->state.best;
  ASSERT_TRUE(p.count("uncertainty:label") && p.count("uncertainty:score"));
  for (const char* name : {"uncertainty:label", "uncertainty:score"}) {
    EXPECT_NE(p.at(name)[0], 0.0f) << name;
    EXPECT_GE(p.at(name)[0], kUncertaintyMin) << name;
    EXPECT_LE(p.at(name)[0], kUncertaintyMax) << name;
  }
  // Both tasks learned.
  ASSERT_EQ(r->test.outputs.size(), 2u);
  const OutputScore& label = r->test.outputs.at("label");
  const OutputScore& score = r->test.outputs.at("score");
  ASSERT_TRUE(label.accuracy.has_value());
  EXPECT_GE(*label.accuracy, 0.9);
  EXPECT_FALSE(score.accuracy.has_value());
  EXPECT_LT(score.loss, 0.05);  // the scores' variance is about 0.4
  // The total is the training objective: e^(-s)/2 · L + s/2 per output.
  const double s_label = p.at("uncertainty:label")[0];
  const double s_score = p.at("uncertainty:score")[0];
  double total = std::exp(-s_label) / 2 * label.loss + s_label / 2 +
                 std::exp(-s_score) / 2 * score.loss + s_score / 2;
  EXPECT_NEAR(r->test.loss, total, 1e-6 * std::max(1.0, total));
  // A snapshot of it fits the model, uncertainty weights included.
  ModelSnapshot s;
  s.state = r->state;
  EXPECT_TRUE(CheckSnapshotFits(s, *check.dag).ok());
}

TEST(MultiOutput, FixedLossWeightsAreParsedAndChecked) {
  CheckResult check = CheckModel("two.wnm", kTwoTasks);
  ASSERT_TRUE(check.ok);
  Hyperparameters h = Quick();
  h.loss_weights = {0.7, 0.3};
  absl::StatusOr<std::vector<OutputSpec>> specs =
      OutputSpecs(*check.dag, h, nullptr);
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ((*specs)[0].weight, 0.7);
  EXPECT_EQ((*specs)[1].weight, 0.3);
  Dataset data = TwoTaskData();
  auto backend = backends::CreateBackend("cpu");
  h.epochs = 5;
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->state.params.count("uncertainty:label"));
  EXPECT_NEAR(r->test.loss,
              0.7 * r->test.outputs.at("label").loss +
                  0.3 * r->test.outputs.at("score").loss,
              1e-9);
  h.loss_weights = {1};
  EXPECT_THAT(
      std::string(OutputSpecs(*check.dag, h, nullptr).status().message()),
      HasSubstr("1 weights for 2 outputs"));
  EXPECT_FALSE(
      SetHyperparameterText(h, *FindHyperparameter("lossWeights"), "a,b").ok());
}

TEST(MultiOutput, EveryOutputNeedsItsTargets) {
  CheckResult check = CheckModel("two.wnm", kTwoTasks);
  ASSERT_TRUE(check.ok);
  Dataset one =
      Dataset::Make("one", 4, std::vector<float>(40, 0.5f), 1,
                    std::vector<float>(10, 1.0f), true, {"a", "b", "c"});
  ASSERT_TRUE(one.Split(60, 20, 20, 1).ok());
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, one, Quick(), **backend);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("no targets for the output"));
  one.SetFirstOutput("label");
  EXPECT_FALSE(one.AddTargets({.output = "score", .values = {1, 2}}).ok());
  EXPECT_FALSE(one.AddTargets({.output = "label",
                               .values = std::vector<float>(10, 0.0f)})
                   .ok());
  EXPECT_THAT(std::string(one.AddTargets({.output = "c",
                                          .classification = true,
                                          .classes = {"x", "y"},
                                          .values = std::vector<float>(10, 2)})
                              .message()),
              HasSubstr("not a class index"));
}

}  // namespace
}  // namespace webnnm::train

namespace webnnm::train {
namespace {

constexpr char kTwoInputs[] = R"(
model:name two-inputs;
left:input shape=[2];
right:input shape=[2];
label:output shape=[3];
label:loss CCE;
label:layers
    concat([left, right], axis=0),
    dense(shape=[16], activation=relu),
    dense(shape=[3], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";

// Blobs' four features split between two inputs.
Dataset TwoInputData() {
  Dataset blobs = testing::Blobs(300, 4, 3, 21);
  std::vector<float> left, right, labels;
  for (int64_t i = 0; i < blobs.count(); ++i) {
    const float* f = blobs.features(i);
    left.insert(left.end(), {f[0], f[1]});
    right.insert(right.end(), {f[2], f[3]});
    labels.push_back(static_cast<float>(blobs.label(i)));
  }
  Dataset d =
      Dataset::Make("two-inputs", 2, left, 1, labels, true, blobs.classes());
  d.SetFirstInput("left");
  EXPECT_TRUE(
      d.AddFeatures({.input = "right", .width = 2, .values = right}).ok());
  EXPECT_TRUE(d.Split(60, 20, 20, 4).ok());
  return d;
}

TEST(MultiInput, TrainsOnFeaturesForEachInput) {
  CheckResult check = CheckModel("in.wnm", kTwoInputs);
  ASSERT_TRUE(check.ok) << check.rendered;
  Dataset data = TwoInputData();
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, Quick(), **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->test.accuracy.has_value());
  // Class 2 is told apart only by the right input's first feature.
  EXPECT_GE(*r->test.accuracy, 0.9);
}

TEST(MultiInput, EveryFloatInputIsStandardizedAndTheStatisticsKept) {
  CheckResult check = CheckModel("in.wnm", kTwoInputs);
  ASSERT_TRUE(check.ok) << check.rendered;
  // The right input far from unit scale: 5000 + 1000 x.
  Dataset data = TwoInputData();
  Dataset raw = data;
  std::vector<float> right = data.more_inputs()[0].values;
  for (float& v : right) v = 5000 + 1000 * v;
  Dataset scaled = Dataset::Make("scaled", 2, {}, 1, {}, true, {});
  {
    std::vector<float> left, labels;
    for (int64_t i = 0; i < raw.count(); ++i) {
      left.insert(left.end(), raw.features(i), raw.features(i) + 2);
      labels.push_back(static_cast<float>(raw.label(i)));
    }
    scaled = Dataset::Make("scaled", 2, left, 1, labels, true, raw.classes());
    scaled.SetFirstInput("left");
    ASSERT_TRUE(
        scaled.AddFeatures({.input = "right", .width = 2, .values = right})
            .ok());
    ASSERT_TRUE(scaled.Split(60, 20, 20, 4).ok());
  }
  Dataset copy = scaled;
  std::vector<Decision> d =
      AdviseStandardization(scaled, StandardizeMode::kAuto, *check.dag);
  std::vector<std::string> what;
  for (const Decision& one : d) what.push_back(one.what);
  EXPECT_THAT(what, ::testing::Contains("standardize the features of 'right'"));
  const std::map<std::string, Standardization> kept =
      scaled.InputStandardizations();
  ASSERT_EQ(kept.count("right"), 1u);
  EXPECT_GT(kept.at("right").mean[0], 4000);
  // The training subset's mean of the right input is 0 now.
  double sum = 0;
  for (int64_t i : scaled.subset(Subset::kTraining)) {
    sum += scaled.more_inputs()[0].values[i * 2];
  }
  EXPECT_NEAR(sum / scaled.subset(Subset::kTraining).size(), 0.0, 1e-3);
  // A snapshot's statistics give the same values on the raw data.
  ASSERT_TRUE(copy.ApplyInputStandardizations(kept).ok());
  EXPECT_EQ(copy.more_inputs()[0].values, scaled.more_inputs()[0].values);
  EXPECT_THAT(
      std::string(copy.ApplyInputStandardizations({{"sound", kept.at("right")}})
                      .message()),
      HasSubstr("standardizes the input 'sound', which the data does "
                "not feed"));
  // And the model trains on it.
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, scaled, Quick(), **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(*r->test.accuracy, 0.9);
}

TEST(MultiInput, EveryInputNeedsItsFeatures) {
  CheckResult check = CheckModel("in.wnm", kTwoInputs);
  ASSERT_TRUE(check.ok);
  Dataset data = TwoInputData();
  Dataset only_left =
      Dataset::Make("left", 2, std::vector<float>(20, 1.0f), 1,
                    std::vector<float>(10, 0.0f), true, {"c0", "c1", "c2"});
  only_left.SetFirstInput("left");
  ASSERT_TRUE(only_left.Split(60, 20, 20, 1).ok());
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r =
      Train(*check.dag, only_left, Quick(), **backend);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("no features for the input 'right'"));
  EXPECT_FALSE(
      data.AddFeatures({.input = "right", .width = 2, .values = {1, 2}}).ok());
  EXPECT_FALSE(
      data.AddFeatures({.input = "other", .width = 2, .values = {1}}).ok());
  EXPECT_FALSE(data.AddFeatures({.input = "left",
                                 .width = 2,
                                 .values = std::vector<float>(600, 0.0f)})
                   .ok());
}

}  // namespace
}  // namespace webnnm::train
