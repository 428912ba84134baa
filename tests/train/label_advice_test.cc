// The labels: skewed classes suggest focal loss with the counts (and only
// then); a sample of regression targets warns of what the output cannot
// reach or what looks like class ids; probability rows get KLD and the
// loss decision says what the labels are.
#include "engine/expert/label_advice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/feeder.h"
#include "engine/train/trainer.h"

namespace webnnm::train {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// `per_class[c]` one-hot samples of class c, all in the training subset.
Dataset OneHot(const std::vector<int>& per_class) {
  const int k = static_cast<int>(per_class.size());
  std::vector<float> features, targets;
  std::vector<std::string> names;
  for (int c = 0; c < k; ++c) names.push_back("c" + std::to_string(c));
  int64_t n = 0;
  for (int c = 0; c < k; ++c) {
    for (int i = 0; i < per_class[c]; ++i, ++n) {
      features.push_back(static_cast<float>(c));
      for (int j = 0; j < k; ++j) targets.push_back(j == c ? 1.0f : 0.0f);
    }
  }
  Dataset d = Dataset::Make("test", 1, std::move(features), k,
                            std::move(targets), true, names);
  std::vector<int64_t> all(n);
  for (int64_t i = 0; i < n; ++i) all[i] = i;
  d.SetSubset(Subset::kTraining, all);
  return d;
}

OutputSpec Spec(LossKind loss) {
  OutputSpec spec;
  spec.name = "model";
  spec.loss = loss;
  return spec;
}

TEST(ClassBalance, CountsOneHotRows) {
  Dataset d = OneHot({3, 1, 2});
  EXPECT_THAT(ClassCounts(d.targets()[0], d.subset(Subset::kTraining)),
              ElementsAre(3, 1, 2));
}

TEST(ClassBalance, SkewedClassesSuggestFocalLossWithTheirCounts) {
  Dataset d = OneHot({80, 10, 5});
  std::vector<std::string> w =
      ClassBalanceWarnings(d, {Spec(LossKind::kCategoricalCrossEntropy)}, {0});
  ASSERT_THAT(w, SizeIs(1));
  EXPECT_THAT(w[0], HasSubstr("the classes of 'model' are skewed in the "
                              "training subset (c0 80, c1 10, c2 5: the "
                              "largest has 16x the smallest's)"));
  EXPECT_THAT(w[0], HasSubstr("model:loss FOL;"));
  // A class without a training sample is said so.
  EXPECT_THAT(ClassBalanceWarnings(OneHot({20, 0}),
                                   {Spec(LossKind::kBinaryCrossEntropy)}, {0}),
              ElementsAre(HasSubstr("a class has no sample")));
}

TEST(ClassBalance, SilentOnBalancedClassesFocalLossAndRegression) {
  EXPECT_THAT(
      ClassBalanceWarnings(OneHot({30, 25, 12}),  // 2.5x: within kSkewedRatio
                           {Spec(LossKind::kCategoricalCrossEntropy)}, {0}),
      IsEmpty());
  Dataset skewed = OneHot({80, 10, 5});
  EXPECT_THAT(ClassBalanceWarnings(skewed, {Spec(LossKind::kFocal)}, {0}),
              IsEmpty());
  EXPECT_THAT(
      ClassBalanceWarnings(skewed, {Spec(LossKind::kMeanSquaredError)}, {0}),
      IsEmpty());
}

// One-unit regression targets `values`, all training samples.
Dataset Values(const std::vector<float>& values) {
  std::vector<float> features(values.size(), 1.0f);
  Dataset d =
      Dataset::Make("test", 1, std::move(features), 1, values, false, {});
  std::vector<int64_t> all(values.size());
  for (size_t i = 0; i < values.size(); ++i) all[i] = static_cast<int64_t>(i);
  d.SetSubset(Subset::kTraining, all);
  return d;
}

dag::Dag Model(const std::string& activation) {
  CheckResult check =
      CheckModel("m.wnm",
                 "model:input shape=[1];\nmodel:output shape=[1];\n"
                 "model:layers matmul(w), add(b)" +
                     activation + ";\n");
  EXPECT_TRUE(check.ok) << check.rendered;
  return *check.dag;
}

TEST(LabelSample, TargetsASigmoidCannotReachAreWarned) {
  std::vector<float> big;
  for (int i = 0; i < 50; ++i) big.push_back(0.5f * i - 3.0f);  // [-3, 21.5]
  std::vector<std::string> w =
      LabelSampleWarnings(Model(", sigmoid()"), Values(big),
                          {Spec(LossKind::kMeanSquaredError)}, {0});
  ASSERT_THAT(w, SizeIs(1));
  EXPECT_THAT(w[0], HasSubstr("the targets of 'model' range over [-3, 21.5] "
                              "(a sample of 50) but the output ends with "
                              "sigmoid"));
  // In (0, 1), or without the sigmoid: silent.
  std::vector<float> unit;
  for (int i = 0; i < 50; ++i) unit.push_back(0.01f + 0.019f * i);
  EXPECT_THAT(LabelSampleWarnings(Model(", sigmoid()"), Values(unit),
                                  {Spec(LossKind::kMeanSquaredError)}, {0}),
              IsEmpty());
  EXPECT_THAT(LabelSampleWarnings(Model(""), Values(big),
                                  {Spec(LossKind::kMeanSquaredError)}, {0}),
              IsEmpty());
}

TEST(LabelSample, ClassIdsUnderARegressionLossAreWarned) {
  std::vector<float> ids;
  for (int i = 0; i < 60; ++i) ids.push_back(static_cast<float>(i % 3));
  std::vector<std::string> w = LabelSampleWarnings(
      Model(""), Values(ids), {Spec(LossKind::kMeanSquaredError)}, {0});
  ASSERT_THAT(w, SizeIs(1));
  EXPECT_THAT(w[0], HasSubstr("the targets of 'model' look like class ids (3 "
                              "whole numbers in [0, 2], a sample of 60) but "
                              "the loss MSE treats them as values"));
  // Standardized targets are judged in their own units.
  Dataset standardized = Values(ids);
  standardized.StandardizeTargets(0);
  ASSERT_FALSE(standardized.targets()[0].standardization.empty());
  EXPECT_THAT(LabelSampleWarnings(Model(""), standardized,
                                  {Spec(LossKind::kMeanSquaredError)}, {0}),
              ElementsAre(HasSubstr("look like class ids (3 whole numbers "
                                    "in [0, 2]")));
  // Many distinct values, or fractions: amounts, silent.
  std::vector<float> amounts;
  for (int i = 0; i < 60; ++i)
    amounts.push_back(static_cast<float>(25 + 5 * i));
  EXPECT_THAT(LabelSampleWarnings(Model(""), Values(amounts),
                                  {Spec(LossKind::kMeanSquaredError)}, {0}),
              IsEmpty());
  std::vector<float> fractions;
  for (int i = 0; i < 60; ++i) fractions.push_back(0.5f * (i % 3));
  EXPECT_THAT(LabelSampleWarnings(Model(""), Values(fractions),
                                  {Spec(LossKind::kMeanSquaredError)}, {0}),
              IsEmpty());
}

}  // namespace
}  // namespace webnnm::train

namespace webnnm::train {
namespace {

// A three-class model (softmax), its loss left to the expert system unless
// `loss` declares one.
dag::Dag ThreeClasses(const std::string& loss = "") {
  CheckResult r = CheckModel("m.wnm", "model:name m;\n" + loss + R"(
model:input shape=[2];
model:output shape=[3];
model:layers dense(shape=[3], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  if (!r.ok) {
    ADD_FAILURE() << r.rendered;
    return {};
  }
  return *r.dag;
}

// `n` samples of two features whose labels are probability rows leaning
// to class (i % 3), or class ids when `ids`.
Dataset Soft(int n, bool ids) {
  std::vector<float> features, targets;
  for (int i = 0; i < n; ++i) {
    const int c = i % 3;
    features.push_back(c == 1 ? 2.0f : 0.0f);
    features.push_back(c == 2 ? 2.0f : 0.0f);
    if (ids) {
      targets.push_back(static_cast<float>(c));
      continue;
    }
    for (int k = 0; k < 3; ++k) targets.push_back(k == c ? 0.8f : 0.1f);
  }
  Dataset d = Dataset::Make("soft", 2, std::move(features), ids ? 1 : 3,
                            std::move(targets), true, {"a", "b", "c"});
  if (!ids) {
    EXPECT_TRUE(d.SetFirstTargetsForm(LabelForm::kProbabilities).ok());
  }
  EXPECT_TRUE(d.Split(70, 15, 15, 1).ok());
  return d;
}

TEST(LossFromLabels, ProbabilityRowsGetKldAndTheDecisionSaysWhy) {
  const dag::Dag dag = ThreeClasses();
  const Dataset soft = Soft(90, false);
  std::vector<Decision> decisions;
  absl::StatusOr<std::vector<OutputSpec>> specs =
      OutputSpecs(dag, Hyperparameters{}, &decisions, &soft);
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].loss, LossKind::kKlDivergence);
  ASSERT_THAT(decisions, SizeIs(1));
  EXPECT_EQ(decisions[0].what, "loss KLD for 'model'");
  EXPECT_THAT(decisions[0].why,
              HasSubstr("its labels are probability rows over 3 classes: "
                        "distribution matching"));
  // Class ids: CCE, with what the labels are; a declared loss stays.
  const Dataset ids = Soft(90, true);
  decisions.clear();
  specs = OutputSpecs(dag, Hyperparameters{}, &decisions, &ids);
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].loss, LossKind::kCategoricalCrossEntropy);
  EXPECT_THAT(decisions[0].why, HasSubstr("; its labels are class ids of 3 "
                                          "classes"));
  const dag::Dag declared = ThreeClasses("model:loss CCE;");
  decisions.clear();
  specs = OutputSpecs(declared, Hyperparameters{}, &decisions, &soft);
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].loss, LossKind::kCategoricalCrossEntropy);
  EXPECT_THAT(decisions[0].why, HasSubstr("declared by the model; its labels "
                                          "are probability rows"));
  // Without data: the activation's choice.
  specs = OutputSpecs(dag, Hyperparameters{}, nullptr);
  EXPECT_EQ((*specs)[0].loss, LossKind::kCategoricalCrossEntropy);
}

TEST(LossFromLabels, SoftLabelsTrainAndScCeRefusesThem) {
  const dag::Dag dag = ThreeClasses();
  const Dataset soft = Soft(300, false);
  Hyperparameters h;
  h.epochs = 30;
  h.seeds = 3;
  auto backend = backends::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  absl::StatusOr<TrainResult> r = Train(dag, soft, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(*r->test.accuracy, 0.95);  // against each row's likeliest class
  const dag::Dag sparse = ThreeClasses("model:loss SCE;");
  EXPECT_THAT(
      CheckShapes(
          sparse, soft,
          {{.name = "model", .loss = LossKind::kSparseCategoricalCrossEntropy}})
          .message(),
      HasSubstr("the labels of 'model' are probabilities, but SCE takes one "
                "class id a sample; CCE or KLD take probabilities"));
}

}  // namespace
}  // namespace webnnm::train
