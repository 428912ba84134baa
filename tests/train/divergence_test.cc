// A run that diverges: it goes back to its last good epoch with a tenth of
// the learning rate (a decision, kept in snapshots so that a resumed run
// ends where the uninterrupted one does), and after two such retries it
// fails with the reason instead of succeeding with NaN losses.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/data_source.h"
#include "engine/train/trainer.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

struct Iris {
  dag::Dag dag;
  Dataset data;
  Hyperparameters hyper;
  explicit Iris(double lr) {
    CheckResult check =
        CheckModel("iris.wnm",
                   "model:input shape=[4];\nmodel:output shape=[3];\n"
                   "model:layers dense(shape=[3], activation=relu),\n"
                   "  dense(shape=[3], activation=softmax);\n"
                   "dense:layers matmul(w), add(b), activation();\n");
    EXPECT_TRUE(check.ok) << check.rendered;
    dag = *std::move(check.dag);
    DataSource source{.path = WEBNNM_SOURCE_DIR "/configs/datasets/iris.csv"};
    data = *ReadDataFor(dag, source);
    EXPECT_TRUE(SplitData(data, source, {60, 20, 20}, 1).ok());
    data.Standardize();  // as a run does by default
    hyper.epochs = 50;
    hyper.optimizer = OptimizerKind::kSgdm;
    hyper.lr = lr;
    hyper.seeds = 3;
  }
};

std::vector<Decision> LowerLr(const TrainResult& r) {
  std::vector<Decision> out;
  for (const Decision& d : r.decisions) {
    if (d.what.starts_with("lr ")) out.push_back(d);
  }
  return out;
}

TEST(Divergence, ARunThatStaysDivergedFailsWithTheReason) {
  Iris iris(1e6);
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r =
      Train(iris.dag, iris.data, iris.hyper, **backend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("training diverged: the "));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(" loss of epoch "));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("after 2 restarts"));
}

TEST(Divergence, ALowerLearningRateTakesOverFromTheLastGoodEpoch) {
  Iris iris(30);  // sgdm at lr 30 blows up after some epochs; at 3 it does not
  auto backend = backends::CreateBackend("cpu");
  std::vector<EpochReport> epochs;
  TrainCallbacks callbacks;
  callbacks.epoch = [&](const EpochReport& e) { epochs.push_back(e); };
  absl::StatusOr<TrainResult> r =
      Train(iris.dag, iris.data, iris.hyper, **backend, callbacks);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Decision> lowered = LowerLr(*r);
  ASSERT_EQ(lowered.size(), 1u);
  EXPECT_THAT(lowered[0].why, HasSubstr("the run diverged"));
  EXPECT_EQ(r->state.divergences, 1);
  EXPECT_EQ(*r->state.hyper.lr, 3);
  // Every epoch reported is a good one, each once.
  ASSERT_EQ(epochs.size(), 50u);
  for (size_t i = 0; i < epochs.size(); ++i) {
    EXPECT_EQ(epochs[i].epoch, static_cast<int>(i) + 1);
    EXPECT_TRUE(std::isfinite(*epochs[i].validation_loss));
  }
  EXPECT_TRUE(std::isfinite(r->test.loss));
}

TEST(Divergence, ResumingAfterARetryEndsAsTheUninterruptedRun) {
  Iris iris(30);
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> whole =
      Train(iris.dag, iris.data, iris.hyper, **backend);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(whole->state.divergences, 1);
  // Stop after the retry (its epoch is in the decision), then resume.
  std::optional<TrainState> saved;
  TrainCallbacks stop;
  stop.checkpoint = [&](const TrainState& s) {
    if (s.divergences == 0 || s.epoch < 40) return true;
    saved = s;
    return false;
  };
  ASSERT_TRUE(Train(iris.dag, iris.data, iris.hyper, **backend, stop).ok());
  ASSERT_TRUE(saved.has_value());
  // Through a snapshot's bytes, as a daemon's checkpoint would be.
  ModelSnapshot s;
  s.state = *saved;
  absl::StatusOr<ModelSnapshot> back =
      DecodeModelSnapshot(*EncodeModelSnapshot(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->state.divergences, 1);
  absl::StatusOr<TrainResult> resumed =
      Train(iris.dag, iris.data, back->state.hyper, **backend, {}, &back->state);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->state.params, whole->state.params);
  EXPECT_EQ(resumed->state.best, whole->state.best);
}

}  // namespace
}  // namespace webnnm::train
