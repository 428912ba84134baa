// Skewed classes: focal loss is suggested with the counts, and only then.
#include "engine/train/class_balance.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  std::vector<std::string> w = ClassBalanceWarnings(
      d, {Spec(LossKind::kCategoricalCrossEntropy)}, {0});
  ASSERT_THAT(w, SizeIs(1));
  EXPECT_THAT(w[0], HasSubstr("the classes of 'model' are skewed in the "
                              "training subset (c0 80, c1 10, c2 5: the "
                              "largest has 16x the smallest's)"));
  EXPECT_THAT(w[0], HasSubstr("model:loss FOL;"));
  // A class without a training sample is said so.
  EXPECT_THAT(ClassBalanceWarnings(
                  OneHot({20, 0}), {Spec(LossKind::kBinaryCrossEntropy)}, {0}),
              ElementsAre(HasSubstr("a class has no sample")));
}

TEST(ClassBalance, SilentOnBalancedClassesFocalLossAndRegression) {
  EXPECT_THAT(ClassBalanceWarnings(
                  OneHot({30, 25, 12}),  // 2.5x: within kSkewedRatio
                  {Spec(LossKind::kCategoricalCrossEntropy)}, {0}),
              IsEmpty());
  Dataset skewed = OneHot({80, 10, 5});
  EXPECT_THAT(ClassBalanceWarnings(skewed, {Spec(LossKind::kFocal)}, {0}),
              IsEmpty());
  EXPECT_THAT(
      ClassBalanceWarnings(skewed, {Spec(LossKind::kMeanSquaredError)}, {0}),
      IsEmpty());
}

}  // namespace
}  // namespace webnnm::train
