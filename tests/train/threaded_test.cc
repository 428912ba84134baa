// Training with several threads (step_runner.h): a step heavy enough is
// shared by the threads as replicas share it — the same bits as that many
// replicas joined by a ThreadCollective, close to one thread's; a light
// step runs on one thread, bit for bit as with one.
#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/collective.h"
#include "engine/train/step_team.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

// 16x16 images, one 3x3 convolution of 8 channels: about 63 kFLOP a row
// in training, 6,400 a parameter at batch 128 — a step the threads share.
constexpr char kCnn[] = R"(
model:name cnn;
model:input shape={channels: 1, height: 16, width: 16};
model:output shape=[3];
model:layers
    conv(shape={channels: 8, height: 14, width: 14}),
    maxPool2d(windowDimensions={height: 2, width: 2},
              strides={height: 2, width: 2}),
    reshape(newShape=[392]),
    dense(shape=[3], activation=softmax);
conv:layers conv2d(filter), add(bias), relu();
dense:layers matmul(w), add(b), activation();
)";

// A light step: 6-16-3 at batch 32.
constexpr char kMlp[] = R"(
model:name mlp;
model:input shape=[6];
model:output shape=[3];
model:layers
    dense(shape=[16], activation=relu),
    dense(shape=[3], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";

Hyperparameters Hyper(int batch, int threads) {
  Hyperparameters h;
  h.epochs = 4;
  h.patience = 1000;
  h.seeds = 2;
  h.batch_size = batch;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.02;
  h.threads = threads;
  return h;
}

Dataset Data(int features) {
  Dataset data = testing::Blobs(600, features, 3, 11);
  EXPECT_TRUE(data.Split(70, 15, 15, 1).ok());
  return data;
}

absl::StatusOr<TrainResult> TrainWith(const char* model, const Dataset& data,
                                      const Hyperparameters& h,
                                      Collective* collective = nullptr) {
  CheckResult check = CheckModel("m.wnm", model);
  EXPECT_TRUE(check.ok) << check.rendered;
  auto backend = backends::CreateBackend("cpu");
  return Train(*check.dag, data, h, **backend, {}, nullptr, collective);
}

double MaxDifference(const Params& a, const Params& b) {
  double most = 0;
  for (const auto& [name, values] : a) {
    for (size_t i = 0; i < values.size(); ++i) {
      most = std::max(most, std::fabs(double(values[i]) - b.at(name)[i]));
    }
  }
  return most;
}

TEST(Threads, AHeavyStepIsSharedAsReplicasShareIt) {
  // 420 training rows in batches of 128: the last batch's 36 rows are all
  // the first share's; the second's is empty.
  Dataset data = Data(256);
  absl::StatusOr<TrainResult> two = TrainWith(kCnn, data, Hyper(128, 2));
  ASSERT_TRUE(two.ok()) << two.status();
  absl::StatusOr<TrainResult> one = TrainWith(kCnn, data, Hyper(128, 1));
  ASSERT_TRUE(one.ok()) << one.status();
  auto hub = ThreadCollective::MakeHub(2);
  std::vector<absl::StatusOr<TrainResult>> replicas(
      2, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      ThreadCollective collective(hub, r);
      replicas[r] = TrainWith(kCnn, data, Hyper(128, 1), &collective);
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_TRUE(replicas[0].ok()) << replicas[0].status();
  // The replicas' bits: the same shares, sums and update.
  EXPECT_EQ(two->state.params, replicas[0]->state.params);
  EXPECT_EQ(two->state.momenta, replicas[0]->state.momenta);
  // One thread's up to the order of float sums.
  EXPECT_NE(two->state.params, one->state.params)
      << "bit-identical: the threads did not share the batches";
  EXPECT_LT(MaxDifference(two->state.params, one->state.params), 1e-4);
  EXPECT_NEAR(two->final_train_loss, one->final_train_loss, 1e-4);
  EXPECT_EQ(two->epochs, one->epochs);
}

TEST(Threads, ALightStepRunsOnOneThreadBitForBit) {
  Dataset data = Data(6);
  absl::StatusOr<TrainResult> two = TrainWith(kMlp, data, Hyper(32, 2));
  ASSERT_TRUE(two.ok()) << two.status();
  absl::StatusOr<TrainResult> one = TrainWith(kMlp, data, Hyper(32, 1));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(two->state.params, one->state.params);
  EXPECT_EQ(two->state.momenta, one->state.momenta);
}

TEST(StepTeam, EveryRankRunsEveryCallOnce) {
  for (int size : {1, 2, 3}) {
    StepTeam team(size);
    EXPECT_EQ(team.size(), size);
    std::vector<int> runs(size, 0);
    std::vector<std::thread::id> where(size);
    for (int call = 0; call < 2000; ++call) {
      // Now and then a pause long enough for the threads to sleep.
      if (call % 500 == 499) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      team.Run([&](int rank) {
        ++runs[rank];
        where[rank] = std::this_thread::get_id();
      });
      // Run() returns after every rank: its effects are all visible.
      for (int r = 0; r < size; ++r) ASSERT_EQ(runs[r], call + 1) << r;
    }
    EXPECT_EQ(where[0], std::this_thread::get_id());
    for (int r = 1; r < size; ++r) EXPECT_NE(where[r], where[0]);
  }
}

}  // namespace
}  // namespace webnnm::train
