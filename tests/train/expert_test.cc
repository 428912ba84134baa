// The expert system's profile and decisions on small models.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/expert/expert.h"
#include "engine/train/trainer.h"
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

// Every output's loss is held against its own activation, the warning
// naming the output.
TEST(Advise, EachOutputsLossMeetsItsActivation) {
  dag::Dag dag = Build(
      "a:input shape=[4];\n"
      "label:output shape=[3];\n"
      "label:layers dense(a, shape=[8], activation=relu, name=shared),\n"
      "  dense(shape=[3], activation=sigmoid);\n"
      "score:output shape=[2];\n"
      "score:layers dense(shared, shape=[2], activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n");
  std::vector<OutputSpec> specs = {
      {.name = "label", .loss = LossKind::kBinaryCrossEntropy},
      {.name = "score", .loss = LossKind::kMeanSquaredError}};
  Advice a = Advise(dag, Profile(dag), Hyperparameters{}, specs, 1.0);
  EXPECT_THAT(a.warnings,
              Contains(HasSubstr("the output of 'score' ends with softmax but "
                                 "the loss MSE is a regression loss")));
  EXPECT_THAT(a.warnings, Not(Contains(HasSubstr("of 'label'"))));
  specs[1].loss = LossKind::kCategoricalCrossEntropy;
  specs[0].loss = LossKind::kCategoricalCrossEntropy;  // after a sigmoid
  Advice b = Advise(dag, Profile(dag), Hyperparameters{}, specs, 1.0);
  EXPECT_THAT(b.warnings, Not(Contains(HasSubstr("regression loss"))));
  EXPECT_THAT(b.warnings, Contains(HasSubstr("the loss CCE of 'label' expects "
                                             "probabilities but the output has "
                                             "no softmax")));
  // A sigmoid under MSE is a bounded regression: no warning here.
  specs[0].loss = LossKind::kMeanSquaredError;
  Advice c = Advise(dag, Profile(dag), Hyperparameters{}, specs, 1.0);
  EXPECT_THAT(c.warnings, Not(Contains(HasSubstr("of 'label'"))));
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
  // The softmax computes in float32 (a decision), so no overflow warning.
  EXPECT_TRUE(Decided(a, "softmax (line 5) computed in float32"));
  EXPECT_THAT(a.warnings, Not(Contains(HasSubstr("float16 softmax"))));
  // Asked for float16, it stays and the warning names it.
  std::string kept = text;
  kept.replace(kept.find("activation();"), 13, "activation(dataType=float16);");
  dag::Dag f16 = Build(kept);
  Advice k = Advise(f16, Profile(f16), Hyperparameters{}, Cce(), 1.0);
  EXPECT_THAT(k.warnings, Contains(HasSubstr("float16 softmax: these overflow "
                                             "float16's range (65504)")));
  EXPECT_FALSE(Decided(k, "computed in float32"));
  Hyperparameters off;
  off.gradient_scaling = GradientScaling::kOff;
  Advice b = Advise(dag, p, off, Cce(), 1.0);
  EXPECT_THAT(b.warnings, Contains(HasSubstr("will almost certainly stall")));
}

TEST(Advise, OneHeavyFloat16OperationTurnsScalingOn) {
  // One of two matmuls in float16 (its input cast down):
  // the decision agrees with the warning that scaling off would stall.
  dag::Dag dag = Build(
      "model:input shape=[8];\nmodel:output shape=[2];\n"
      "model:layers cast(dataType=float16), matmul(w, shape=[4]), add(b),\n"
      "  relu(), cast(dataType=float32), dense(shape=[2], "
      "activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n");
  DagProfile p = Profile(dag);
  ASSERT_EQ(p.heavy, 2);
  ASSERT_EQ(p.heavy_float16, 1);
  Advice a = Advise(dag, p, Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(a.resolved.gradient_scaling, GradientScaling::kOn);
  EXPECT_TRUE(Decided(a, "gradient scaling on"));
  bool named = false;
  for (const Decision& d : a.decisions) {
    named |= d.why.find("1 of 2 heavy operations run in float16") !=
             std::string::npos;
  }
  EXPECT_TRUE(named);
  // The NPU nudge: the float32 matmul lingers (2x2 weights); one warning.
  EXPECT_THAT(a.warnings,
              Contains(HasSubstr("1 of 2 heavy operations (matmul, gemm, "
                                 "convolutions; 8 parameters) linger in "
                                 "float32")));
  // All in float32: off, and the reason counts them.
  dag::Dag f32 = Build(Deep(2, 8));
  Advice b = Advise(f32, Profile(f32), Hyperparameters{}, Cce(), 1.0);
  EXPECT_EQ(b.resolved.gradient_scaling, GradientScaling::kOff);
  bool counted = false;
  for (const Decision& d : b.decisions) {
    counted |= d.why.starts_with("all 3 heavy operations run in float32");
  }
  EXPECT_TRUE(counted);
  // No nudge for an all-float32 model, unless it is optimized for the edge.
  EXPECT_THAT(b.warnings, Not(Contains(HasSubstr("linger in float32"))));
  Hyperparameters edge;
  edge.optimize_for = OptimizeFor::kEdge;
  EXPECT_THAT(Advise(f32, Profile(f32), edge, Cce(), 1.0).warnings,
              Contains(HasSubstr("3 of 3 heavy operations")));
}

TEST(Advise, AnExplicitTermWithoutWeightIsWarnedAndAGivenWeightTurnsAutoOn) {
  dag::Dag small = Build(Deep(1, 8));
  DagProfile p = Profile(small);
  // L2 chosen, lambda2 left at 0: a warning naming it, no decision.
  Hyperparameters l2;
  l2.regularization = Regularization::kL2;
  Advice a = Advise(small, p, l2, Cce(), 1.0);
  EXPECT_THAT(a.warnings,
              Contains(HasSubstr("regularization L2 with lambda2 0: that "
                                 "term has no weight")));
  EXPECT_EQ(a.resolved.lambda2, 0);
  // L1+L2 with only lambda2: the L1 term is warned about.
  Hyperparameters both;
  both.regularization = Regularization::kL1L2;
  both.lambda2 = 1e-4;
  Advice b = Advise(small, p, both, Cce(), 1.0);
  EXPECT_THAT(b.warnings, Contains(HasSubstr("with lambda1 0")));
  EXPECT_THAT(b.warnings, Not(Contains(HasSubstr("with lambda2 0"))));
  // With weights: silent.
  l2.lambda2 = 1e-4;
  EXPECT_THAT(Advise(small, p, l2, Cce(), 1.0).warnings,
              Not(Contains(HasSubstr("has no weight"))));
  // auto with a lambda given on a model that auto would leave off: on.
  Hyperparameters given;
  given.lambda1 = 2e-5;
  Advice c = Advise(small, p, given, Cce(), 1.0);
  EXPECT_EQ(c.resolved.regularization, Regularization::kL1);
  EXPECT_EQ(c.resolved.lambda1, 2e-5);
  bool why = false;
  for (const Decision& d : c.decisions) {
    why |= d.why.find("lambda1 0.00002 was given, which turns its term on") !=
               std::string::npos ||
           d.why.find("lambda1 2e-05 was given, which turns its term on") !=
               std::string::npos;
  }
  EXPECT_TRUE(why);
  // And auto without one stays off there.
  EXPECT_EQ(
      Advise(small, p, Hyperparameters{}, Cce(), 1.0).resolved.regularization,
      Regularization::kOff);
}

TEST(ChooseLoss, AFloat16SoftmaxSaysItsCrossEntropyIsTheStableCcelForm) {
  const std::string f16 =
      "model:input float16 shape=[8];\nmodel:output float16 shape=[2];\n"
      "model:layers dense(shape=[2], activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n";
  for (const bool half : {true, false}) {
    std::string text = f16;
    if (!half) {
      for (size_t at; (at = text.find("float16 ")) != std::string::npos;) {
        text.erase(at, 8);
      }
    }
    dag::Dag dag = Build(text);
    Decision d;
    absl::StatusOr<OutputSpec> spec = ChooseLoss(dag, "model", "", &d);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->loss, LossKind::kCategoricalCrossEntropy);
    EXPECT_EQ(d.what, "loss CCE for 'model'");
    EXPECT_EQ(d.why.find("computed as CCEL from the softmax's logits") !=
                  std::string::npos,
              half)
        << d.why;
  }
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

// Epoch reports with the given training and validation losses.
std::vector<EpochReport> History(const std::vector<double>& train,
                                 const std::vector<double>& validation) {
  std::vector<EpochReport> h;
  for (size_t i = 0; i < train.size(); ++i) {
    EpochReport r;
    r.epoch = static_cast<int>(i) + 1;
    r.train_loss = train[i];
    r.validation_loss = validation[i];
    h.push_back(r);
  }
  return h;
}

TEST(AdviseOverfitting, ValidationRisingForAQuarterWhileTrainingFalls) {
  // Best at epoch 3 (0.30); then 0.36 at epoch 8 (5 of 8 epochs rising)
  // while the training loss falls from 0.28 to 0.10.
  auto w = AdviseOverfitting(
      History({0.9, 0.5, 0.28, 0.2, 0.16, 0.13, 0.11, 0.10},
              {0.8, 0.45, 0.30, 0.31, 0.32, 0.33, 0.35, 0.36}));
  ASSERT_TRUE(w);
  EXPECT_THAT(*w, HasSubstr("overfitting: the validation loss rose from 0.3 "
                            "at epoch 3 to 0.36 at epoch 8"));
  EXPECT_THAT(*w, HasSubstr("training loss fell from 0.28 to 0.1"));
  EXPECT_THAT(*w, HasSubstr("--weight-decay"));
}

TEST(AdviseOverfitting, SilentWhileValidationFollowsOrBarelyRises) {
  // Still improving.
  EXPECT_EQ(AdviseOverfitting(History({0.9, 0.5, 0.3, 0.2, 0.15},
                                      {0.8, 0.5, 0.35, 0.3, 0.29})),
            std::nullopt);
  // Rising, but for less than a quarter of the epochs.
  EXPECT_EQ(AdviseOverfitting(History({0.9, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.1},
                                      {0.9, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.4})),
            std::nullopt);
  // Rising by less than 10%.
  EXPECT_EQ(AdviseOverfitting(History({0.9, 0.5, 0.3, 0.2, 0.15, 0.1},
                                      {0.8, 0.5, 0.30, 0.31, 0.31, 0.32})),
            std::nullopt);
  // Negative losses (learned uncertainty weights): by their size.
  EXPECT_EQ(AdviseOverfitting(History({-1.5, -1.9, -1.95, -1.97, -1.98, -1.99},
                                      {-1.5, -1.82, -1.81, -1.80, -1.79, -1.78})),
            std::nullopt);
  // Both rising: no overfitting (the rate, or noise).
  EXPECT_EQ(AdviseOverfitting(History({0.9, 0.5, 0.3, 0.5, 0.6, 0.7},
                                      {0.8, 0.5, 0.30, 0.4, 0.5, 0.6})),
            std::nullopt);
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
