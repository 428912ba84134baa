// What a run with no hyperparameters decides about its length: the batch
// size, the epochs and the patience from the training set's size, the
// learning rate from a range test; and a time budget, planned within and
// held at an epoch boundary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/expert/expert.h"
#include "engine/train/data_source.h"
#include "engine/train/trainer.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

constexpr char kIris[] =
    "model:input shape=[4];\nmodel:output shape=[3];\n"
    "model:layers dense(shape=[8], activation=relu),\n"
    "  dense(shape=[3], activation=softmax);\n"
    "dense:layers matmul(w), add(b), activation();\n";

struct Iris {
  dag::Dag dag;
  Dataset data;
  Iris() {
    CheckResult check = CheckModel("iris.wnm", kIris);
    EXPECT_TRUE(check.ok) << check.rendered;
    dag = *std::move(check.dag);
    DataSource source{.path = WEBNNM_SOURCE_DIR "/configs/datasets/iris.csv"};
    data = *ReadDataFor(dag, source);
    EXPECT_TRUE(SplitData(data, source, {60, 20, 20}, 1).ok());
    data.Standardize();
  }
};

const Decision* Find(const std::vector<Decision>& ds, std::string_view what) {
  for (const Decision& d : ds) {
    if (d.what.starts_with(what)) return &d;
  }
  return nullptr;
}

TEST(AutoLength, SizedByTheTrainingSet) {
  Iris iris;
  const DagProfile p = Profile(iris.dag);
  const OutputSpec cce{.name = "model",
                       .loss = LossKind::kCategoricalCrossEntropy};
  // 90 rows: batches of 16, many epochs, a quarter of them as patience.
  Advice small = Advise(iris.dag, p, Hyperparameters{}, cce, 1.0, 90);
  EXPECT_EQ(small.resolved.batch_size, 16);
  EXPECT_EQ(small.resolved.epochs, 416);  // 10·(45000 / 90)^0.6
  EXPECT_EQ(small.resolved.patience, 104);
  ASSERT_NE(Find(small.decisions, "epochs 416 (2496 steps)"), nullptr);
  EXPECT_FALSE(small.resolved.lr.has_value());  // the range test's
  // 45,000 rows: batches of 32 (a classification's largest), ten epochs,
  // patience 10.
  Advice large = Advise(iris.dag, p, Hyperparameters{}, cce, 1.0, 45000);
  EXPECT_EQ(large.resolved.batch_size, 32);
  EXPECT_EQ(large.resolved.epochs, 10);
  EXPECT_EQ(large.resolved.patience, 10);
  // A regression's batches are larger (its targets' noise), up to 64.
  const OutputSpec mse{.name = "model", .loss = LossKind::kMeanSquaredError};
  EXPECT_EQ(
      Advise(iris.dag, p, Hyperparameters{}, mse, 1.0, 265).resolved.batch_size,
      64);
  EXPECT_EQ(Advise(iris.dag, p, Hyperparameters{}, mse, 1.0, 45000)
                .resolved.batch_size,
            64);
  EXPECT_EQ(
      Advise(iris.dag, p, Hyperparameters{}, cce, 1.0, 265).resolved.batch_size,
      16);
  // Given values stay; given epochs keep the spec's patience of 500.
  Hyperparameters given;
  given.epochs = 7;
  given.batch_size = 5;
  Advice kept = Advise(iris.dag, p, given, cce, 1.0, 90);
  EXPECT_EQ(kept.resolved.epochs, 7);
  EXPECT_EQ(kept.resolved.batch_size, 5);
  EXPECT_EQ(kept.resolved.patience, 500);
  EXPECT_EQ(Find(kept.decisions, "epochs"), nullptr);
}

TEST(AutoLength, TheRangeTestChoosesTheLearningRate) {
  Iris iris;
  auto backend = backends::CreateBackend("cpu");
  Hyperparameters h;
  h.seeds = 3;
  h.epochs = 30;
  absl::StatusOr<TrainResult> r = Train(iris.dag, iris.data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  const Decision* lr = Find(r->decisions, "lr ");
  ASSERT_NE(lr, nullptr);
  EXPECT_THAT(lr->what, HasSubstr("for rlion"));
  EXPECT_THAT(lr->why, HasSubstr("a range test"));
  EXPECT_THAT(lr->why, HasSubstr("from 1e-05 to 1 over 200 steps"));
  // 200 steps of 16 over iris's 105 training rows: about 30 epochs, so a
  // tenth of the minimum's rate — unless the minimum was at the sweep's
  // top (the loss never ran away): then the steepest descent's rate, and a
  // warning says so.
  const bool at_edge =
      lr->why.find("still falling at the top") != std::string::npos;
  if (at_edge) {
    bool warned = false;
    for (const std::string& w : r->warnings) {
      warned |= w.find("found no rate too high") != std::string::npos;
    }
    EXPECT_TRUE(warned);
  } else {
    EXPECT_THAT(lr->why, HasSubstr("that divided by 10 is the maximum"));
  }
  ASSERT_TRUE(r->state.hyper.lr.has_value());
  EXPECT_GE(*r->state.hyper.lr, 1e-5);
  EXPECT_LE(*r->state.hyper.lr, 0.1 * (1 + 1e-9));
  // The range test is a trial: the run starts from the scouted start, so
  // the same run with the chosen lr given ends identically.
  Hyperparameters fixed = h;
  fixed.lr = r->state.hyper.lr;
  absl::StatusOr<TrainResult> same =
      Train(iris.dag, iris.data, fixed, **backend);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->state.params, r->state.params);
  EXPECT_EQ(Find(same->decisions, "lr "), nullptr);
  EXPECT_GT(*r->test.accuracy, 0.8);
}

TEST(TimeBudget, StopsAtTheFirstEpochBoundaryAfterIt) {
  Iris iris;
  auto backend = backends::CreateBackend("cpu");
  Hyperparameters h;
  h.seeds = 3;
  h.lr = 0.01;
  h.epochs = 10000000;  // given: not planned, only held
  h.patience = 10000000;
  h.time_budget = 0.2;
  absl::StatusOr<TrainResult> r = Train(iris.dag, iris.data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(r->epochs, 10000000);
  EXPECT_GE(r->state.elapsed_seconds, 0.2);
  const Decision* stop = Find(r->decisions, "stop after epoch ");
  ASSERT_NE(stop, nullptr);
  EXPECT_THAT(stop->why, HasSubstr("the time budget of 0.2 s is spent"));
  EXPECT_GT(r->test.samples, 0);  // the best epoch is tested
}

TEST(TimeBudget, TheAutomaticLengthPlansWithinIt) {
  Iris iris;
  auto backend = backends::CreateBackend("cpu");
  Hyperparameters h;
  h.seeds = 3;
  h.time_budget = 1e-4;  // less than an epoch takes
  absl::StatusOr<TrainResult> r = Train(iris.dag, iris.data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  const Decision* planned = Find(r->decisions, "epochs 1 (time budget)");
  std::string all;
  for (const Decision& d : r->decisions) all += d.what + "; ";
  ASSERT_NE(planned, nullptr) << all;
  EXPECT_THAT(planned->why, HasSubstr("epochs would not fit"));
  EXPECT_EQ(r->state.hyper.epochs, 1);
  EXPECT_EQ(r->epochs, 1);
}

}  // namespace
}  // namespace webnnm::train
