// Recipes by architecture (expert/recipes.h): what a DAG is made of, the
// recipe it matches and the decision Advise() makes of it.
#include "engine/expert/recipes.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/expert/expert.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

dag::Dag Checked(const std::string& text) {
  CheckResult r = CheckModel("m.wnm", text);
  EXPECT_TRUE(r.ok) << r.rendered;
  return std::move(*r.dag);
}

const char* kWide = R"(model:input shape=[4];
model:output shape=[3];
model:layers
    dense(shape=[256], activation=relu),
    dense(shape=[3], activation=softmax);
)";

TEST(Recipes, TheArchitectureOfTheShippedKinds) {
  const Architecture dense = ArchitectureOf(Checked(kWide));
  EXPECT_FALSE(dense.attention || dense.recurrence || dense.convolution ||
               dense.embedding || dense.token_classes);
  const Architecture tagger = ArchitectureOf(Checked(R"(
model:input int32 shape={sequence};
model:output shape={sequence, tags: 3};
model:layers
    embedding(table, vocabulary=30, shape=[16]),
    lstm(w, r, hiddenSize=32, bias=b, recurrentBias=rb, returnSequence=true),
    dense(shape=[3], activation=softmax);
)"));
  EXPECT_TRUE(tagger.embedding);
  EXPECT_TRUE(tagger.recurrence);
  EXPECT_TRUE(tagger.token_classes);
  const Architecture attention = ArchitectureOf(Checked(R"(
model:input shape={tokens: 16, embedding: 32};
model:output shape=[4];
model:layers
    attend(q, k, v, heads=4),
    residual(to=model),
    layerNormalization(scale, bias, axes=[embedding]),
    reduceMean(axes=[tokens]),
    dense(shape=[4], activation=softmax);
)"));
  EXPECT_TRUE(attention.attention);
  EXPECT_TRUE(attention.normalization);
  EXPECT_FALSE(attention.token_classes);
}

TEST(Recipes, EachArchitectureGetsItsOptimizer) {
  Architecture transformer;
  transformer.attention = true;
  Recipe t = ChooseRecipe(transformer, 5000, 100000);
  EXPECT_EQ(t.name, "transformer");
  EXPECT_EQ(t.optimizer, OptimizerKind::kAdamW);
  EXPECT_EQ(t.weight_decay, 0.1);
  // A dense model with 10+ parameters a sample: AdamW, its decay by n.
  Recipe wide = ChooseRecipe(Architecture{}, 100, 2051);
  EXPECT_EQ(wide.name, "wide dense");
  EXPECT_EQ(wide.optimizer, OptimizerKind::kAdamW);
  EXPECT_DOUBLE_EQ(*wide.weight_decay, 1.0);
  EXPECT_THAT(wide.why, HasSubstr("20.5 parameters a training sample"));
  // Iris's shipped model (27 parameters for 90 samples): rlion.
  Recipe narrow = ChooseRecipe(Architecture{}, 90, 27);
  EXPECT_EQ(narrow.name, "dense");
  EXPECT_EQ(narrow.optimizer, OptimizerKind::kRLion);
  EXPECT_FALSE(narrow.weight_decay.has_value());
  Architecture cnn;
  cnn.convolution = true;
  EXPECT_EQ(ChooseRecipe(cnn, 100, 1000000).optimizer, OptimizerKind::kRLion);
  EXPECT_EQ(ChooseRecipe(cnn, 100, 1000000).name, "convolutional");
}

TEST(Recipes, TheDenseDecayShrinksWithTheSet) {
  EXPECT_DOUBLE_EQ(DenseWeightDecay(25), 1.0);  // capped
  EXPECT_DOUBLE_EQ(DenseWeightDecay(100), 1.0);
  EXPECT_NEAR(DenseWeightDecay(400), 0.5, 1e-12);
  EXPECT_NEAR(DenseWeightDecay(10000), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(DenseWeightDecay(100000000), 0.01);  // floor
}

TEST(Recipes, AdviseResolvesAnAutoOptimizerWithADecision) {
  const dag::Dag dag = Checked(kWide);
  OutputSpec cce;
  cce.name = "model";
  cce.loss = LossKind::kCategoricalCrossEntropy;
  Hyperparameters h;  // optimizer auto
  Advice a = Advise(dag, Profile(dag), h, cce, 1.0, 100);
  EXPECT_EQ(a.resolved.optimizer, OptimizerKind::kAdamW);
  EXPECT_EQ(a.resolved.weight_decay, 1.0);
  bool said = false;
  for (const Decision& d : a.decisions) {
    if (d.what == "optimizer adamw, weight decay 1") {
      said = true;
      EXPECT_THAT(d.why, HasSubstr("the wide dense recipe"));
      EXPECT_THAT(d.why, HasSubstr("dense layers only"));
    }
  }
  EXPECT_TRUE(said);
  // Given, the optimizer stays and no recipe decides.
  h.optimizer = OptimizerKind::kSgdm;
  Advice given = Advise(dag, Profile(dag), h, cce, 1.0, 100);
  EXPECT_EQ(given.resolved.optimizer, OptimizerKind::kSgdm);
  for (const Decision& d : given.decisions) {
    EXPECT_EQ(d.what.find("optimizer"), std::string::npos) << d.what;
  }
}

}  // namespace
}  // namespace webnnm::train
