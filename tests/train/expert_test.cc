// The expert system's profile and decisions on small models.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/train/expert.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;

dag::Dag Build(const std::string& text) {
  CheckResult check = CheckModel("m.wnm", text);
  EXPECT_TRUE(check.ok) << check.rendered;
  return *check.dag;
}

// `layers` dense layers of `width` (tanh), no normalization.
std::string Deep(int layers, int width, const std::string& dtype = "") {
  std::string shapes;
  for (int i = 0; i < layers; ++i) {
    shapes += (i ? ", " : "") + std::string("[") + std::to_string(width) + "]";
  }
  return "model:input " + dtype +
         " shape=[8];\nmodel:output shape=[2];\n"
         "model:layers dense(shapes=[" +
         shapes +
         "], activation=tanh),\n"
         "  dense(shape=[2], activation=softmax);\n"
         "dense:layers matmul(w), add(b), activation();\n";
}

OutputSpec Cce() {
  OutputSpec spec;
  spec.name = "model";
  spec.loss = LossKind::kCategoricalCrossEntropy;
  return spec;
}

bool Decided(const Advice& a, const std::string& what) {
  for (const Decision& d : a.decisions) {
    if (d.what.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(Profile, MeasuresDepthWidthAndParameters) {
  DagProfile p = Profile(Build(Deep(3, 16)));
  EXPECT_EQ(p.depth, 4);
  EXPECT_EQ(p.heavy, 4);
  EXPECT_EQ(p.width, 16);
  EXPECT_EQ(p.input_size, 8);
  EXPECT_EQ(p.parameters, 8 * 16 + 16 + 2 * (16 * 16 + 16) + 16 * 2 + 2);
  EXPECT_FALSE(p.normalization);
}

TEST(Advise, ShallowModelsTrainWithoutClippingUnlessRecurrent) {
  dag::Dag shallow = Build(Deep(1, 8));  // one hidden layer: depth 2
  Advice a = Advise(shallow, Profile(shallow), Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(a.resolved.gradient_clipping, GradientClipping::kOff);
  EXPECT_TRUE(Decided(a, "gradient clipping off"));
  // One gru layer is depth 1, but its gradients pass through every step.
  dag::Dag gru = Build(
      "model:input shape={sequence, features:6};\n"
      "model:output shape=[10];\n"
      "model:layers gru(w, r, bias=b, recurrentBias=rb, shape=[10]);\n");
  DagProfile p = Profile(gru);
  EXPECT_TRUE(p.recurrent);
  EXPECT_LE(p.depth, 2);
  EXPECT_EQ(
      Advise(gru, p, Hyperparameters{}, Cce(), 1.0).resolved.gradient_clipping,
      GradientClipping::kGlobal);
  // An explicit choice stays.
  Hyperparameters global;
  global.gradient_clipping = GradientClipping::kGlobal;
  EXPECT_EQ(Advise(shallow, Profile(shallow), global, Cce(), 1.0)
                .resolved.gradient_clipping,
            GradientClipping::kGlobal);
}

TEST(Advise, DeepNormalizerFreeModelsGetAgc) {
  dag::Dag dag = Build(Deep(17, 8));
  Advice a = Advise(dag, Profile(dag), Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(a.resolved.gradient_clipping, GradientClipping::kAgc);
  EXPECT_TRUE(Decided(a, "gradient clipping AGC"));
  dag::Dag medium = Build(Deep(2, 8));  // depth 3
  Advice b = Advise(medium, Profile(medium), Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(b.resolved.gradient_clipping, GradientClipping::kGlobal);
  // An explicit choice stays.
  Hyperparameters off;
  off.gradient_clipping = GradientClipping::kOff;
  EXPECT_EQ(
      Advise(dag, Profile(dag), off, Cce(), 1.0).resolved.gradient_clipping,
      GradientClipping::kOff);
}

TEST(Advise, Float16ModelsGetScalingAndWarnings) {
  std::string text =
      "model:input float16 shape=[8];\nmodel:output float16 shape=[2];\n"
      "model:layers dense(shape=[4], activation=relu),\n"
      "  dense(shape=[2], activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n";
  dag::Dag dag = Build(text);
  DagProfile p = Profile(dag);
  EXPECT_EQ(p.heavy_float16, 2);
  Advice a = Advise(dag, p, Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(a.resolved.gradient_scaling, GradientScaling::kOn);
  EXPECT_THAT(a.warnings, Contains(HasSubstr("float16 softmax")));
  Hyperparameters off;
  off.gradient_scaling = GradientScaling::kOff;
  Advice b = Advise(dag, p, off, Cce(), 1.0);
  EXPECT_THAT(b.warnings, Contains(HasSubstr("will almost certainly stall")));
}

TEST(Advise, RegularizationFollowsCapacityAndInputSize) {
  dag::Dag big = Build(Deep(3, 128));
  Advice a = Advise(big, Profile(big), Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(a.resolved.regularization, Regularization::kL2);
  EXPECT_EQ(a.resolved.lambda2, 1e-4);
  dag::Dag small = Build(Deep(1, 8));
  EXPECT_EQ(Advise(small, Profile(small), Hyperparameters{}, Cce(), 1.0)
                .resolved.regularization,
            Regularization::kOff);
  dag::Dag wide_input = Build(
      "model:input shape=[6000];\nmodel:output shape=[2];\n"
      "model:layers dense(shape=[2], activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n");
  Advice c =
      Advise(wide_input, Profile(wide_input), Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(c.resolved.regularization, Regularization::kL1);
  EXPECT_EQ(c.resolved.lambda1, 1e-5);
}

TEST(Advise, MoreParametersThanASmallSetHasSamplesGetStrongerL2) {
  // 64-32-10: 2,410 parameters, not high capacity by its structure.
  dag::Dag digits = Build(
      "model:input shape=[64];\nmodel:output shape=[10];\n"
      "model:layers dense(shape=[32], activation=relu),\n"
      "  dense(shape=[10], activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n");
  DagProfile p = Profile(digits);
  ASSERT_EQ(p.parameters, 2410);
  Advice few = Advise(digits, p, Hyperparameters{}, Cce(), 1.0, 1078);
  EXPECT_EQ(few.resolved.regularization, Regularization::kL2);
  EXPECT_EQ(few.resolved.lambda2, 1e-3);
  EXPECT_TRUE(Decided(few, "regularization L2 (lambda2 0.001)"));
  // Enough samples, a large set, or an unknown one: off.
  for (std::optional<int64_t> n :
       {std::optional<int64_t>(2410), std::optional<int64_t>(20000),
        std::optional<int64_t>()}) {
    EXPECT_EQ(Advise(digits, p, Hyperparameters{}, Cce(), 1.0, n)
                  .resolved.regularization,
              Regularization::kOff);
  }
  // A given lambda2 stays; dropout already regularizes.
  Hyperparameters given;
  given.lambda2 = 5e-4;
  EXPECT_EQ(Advise(digits, p, given, Cce(), 1.0, 1078).resolved.lambda2, 5e-4);
  DagProfile dropped = p;
  dropped.dropout_density = 0.5;
  EXPECT_EQ(Advise(digits, dropped, Hyperparameters{}, Cce(), 1.0, 1078)
                .resolved.regularization,
            Regularization::kOff);
}

TEST(Advise, ShortSignOptimizerSchedulesAreWarnings) {
  dag::Dag dag = Build(Deep(2, 8));
  DagProfile p = Profile(dag);
  // lr 5e-4 given, 34 batches of 32 a epoch, 20 epochs: 680 steps travel
  // about 0.17.
  Hyperparameters given;
  given.lr = 5e-4;
  given.epochs = 20;
  given.batch_size = 32;
  Advice a = Advise(dag, p, given, Cce(), 1.0, 1078);
  EXPECT_THAT(a.warnings,
              Contains(AllOf(HasSubstr("680 steps"), HasSubstr("about 0.17"),
                             HasSubstr("raise epochs or lr"))));
  // Enough steps, a larger lr, another optimizer, no data or an automatic
  // lr (the range test's): no warning.
  Hyperparameters longer = given;
  longer.epochs = 200;
  Hyperparameters faster = given;
  faster.lr = 0.01;
  Hyperparameters sgdm = given;
  sgdm.optimizer = OptimizerKind::kSgdm;
  for (const Hyperparameters& h : {longer, faster, sgdm, Hyperparameters{}}) {
    EXPECT_THAT(Advise(dag, p, h, Cce(), 1.0, 1078).warnings,
                Not(Contains(HasSubstr("raise epochs or lr"))));
  }
  EXPECT_THAT(Advise(dag, p, given, Cce(), 1.0).warnings,
              Not(Contains(HasSubstr("raise epochs or lr"))));
  Hyperparameters lion;
  lion.lr = 1e-4;
  lion.optimizer = OptimizerKind::kLion;
  EXPECT_THAT(Advise(dag, p, lion, Cce(), 1.0, 90).warnings,
              Contains(HasSubstr("lion moves a parameter")));
}

TEST(AdviseMoreEpochs, OnlyWhenTheLastOfAllEpochsWasTheBest) {
  EXPECT_THAT(AdviseMoreEpochs(20, 20, 20, true),
              Optional(HasSubstr("still falling at the last epoch (20")));
  EXPECT_EQ(AdviseMoreEpochs(19, 20, 20, true), std::nullopt);
  EXPECT_EQ(AdviseMoreEpochs(12, 12, 20, true), std::nullopt);  // stopped
  EXPECT_EQ(AdviseMoreEpochs(20, 20, 20, false), std::nullopt);
  EXPECT_EQ(AdviseMoreEpochs(1, 1, 1, true), std::nullopt);
}

TEST(Advise, LossMismatchesAndFeatureScaleAreWarnings) {
  dag::Dag dag = Build(Deep(1, 8));
  OutputSpec mse;
  mse.name = "model";
  mse.loss = LossKind::kMeanSquaredError;
  Advice a = Advise(dag, Profile(dag), Hyperparameters{}, mse, 12.0);
  EXPECT_THAT(a.warnings, Contains(HasSubstr("regression loss")));
  EXPECT_THAT(a.warnings, Contains(HasSubstr("far from unit scale")));
  EXPECT_NEAR(a.input_init_scale, 1.0 / 12, 1e-12);
  Advice b = Advise(dag, Profile(dag), Hyperparameters{}, Cce(), 1.0);
  EXPECT_TRUE(b.warnings.empty());
  EXPECT_EQ(b.input_init_scale, 1.0);
}

TEST(Advise, SeveralOutputsGetUncertaintyWeights) {
  std::string text =
      "a:input shape=[4];\n"
      "x:output shape=[2];\nx:layers dense(a, shape=[2], activation=softmax);\n"
      "y:output shape=[1];\ny:layers dense(a, shape=[1], "
      "activation=identity);\n"
      "dense:layers matmul(w), add(b), activation();\n";
  dag::Dag dag = Build(text);
  Advice a = Advise(dag, Profile(dag), Hyperparameters{}, Cce(), 1.0);
  EXPECT_TRUE(a.uncertainty_weights);
  EXPECT_TRUE(Decided(a, "uncertainty"));
}

}  // namespace
}  // namespace webnnm::train

namespace webnnm::train {
namespace {

// End to end: the deep normalizer-free model trains with the AGC the
// expert system chose, and learns.
TEST(Advise, ADeepNormalizerFreeModelTrainsWithAgc) {
  dag::Dag dag = Build(Deep(17, 8));
  Dataset data = testing::Blobs(200, 8, 2, 3);
  ASSERT_TRUE(data.Split(60, 20, 20, 1).ok());
  Hyperparameters h;
  h.epochs = 20;
  h.seeds = 5;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.05;
  std::vector<double> losses;
  TrainCallbacks callbacks;
  callbacks.epoch = [&](const EpochReport& r) {
    losses.push_back(r.train_loss);
  };
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(dag, data, h, **backend, callbacks);
  ASSERT_TRUE(r.ok()) << r.status();
  bool agc = false;
  for (const Decision& d : r->decisions) {
    agc |= d.what.find("gradient clipping AGC") != std::string::npos;
  }
  EXPECT_TRUE(agc);
  EXPECT_EQ(r->state.hyper.gradient_clipping, GradientClipping::kAgc);
  for (double loss : losses) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_LT(losses.back(), losses.front());
  ASSERT_TRUE(r->test.accuracy.has_value());
  EXPECT_GE(*r->test.accuracy, 0.9);
}

}  // namespace
}  // namespace webnnm::train
