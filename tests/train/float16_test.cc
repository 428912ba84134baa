// float16 models train with float32 master parameters and dynamic loss
// scaling: no NaN reaches the parameters, an overflowing scale is halved
// until the steps are clean, and the model learns.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/float16.h"
#include "engine/check.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

constexpr char kHalfModel[] = R"(
model:name half;
model:loss CCE;
model:input float16 shape=[4];
model:output float16 shape=[3];
model:layers
    dense(shape=[16], activation=relu),
    dense(shape=[3], activation=softmax);
dense:layers
    matmul(w),
    add(b),
    activation();
)";

Dataset Blobs() {
  Dataset d = testing::Blobs(300, 4, 3, 777);
  EXPECT_TRUE(d.Split(60, 20, 20, 5).ok());
  return d;
}

bool AllFinite(const Params& params) {
  for (const auto& [name, values] : params) {
    for (float v : values) {
      if (!std::isfinite(v)) return false;
    }
  }
  return true;
}

// Values a float16 cannot hold exactly: the parameters are float32.
int NotHalfExact(const Params& params) {
  int n = 0;
  for (const auto& [name, values] : params) {
    for (float v : values) n += HalfToFloat(DoubleToHalf(v)) != v;
  }
  return n;
}

struct HalfRun {
  absl::StatusOr<TrainResult> result;
  std::vector<double> losses;
};

HalfRun TrainHalf(double scale) {
  CheckResult check = CheckModel("half.wnm", kHalfModel);
  EXPECT_TRUE(check.ok) << check.rendered;
  Dataset data = Blobs();
  auto backend = backends::CreateBackend("cpu");
  Hyperparameters h;
  h.epochs = 30;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.05;
  h.scale = scale;
  h.growth_interval = 20;  // the scale also grows during the run
  HalfRun run;
  TrainCallbacks callbacks;
  callbacks.epoch = [&](const EpochReport& r) {
    run.losses.push_back(r.train_loss);
  };
  run.result = Train(*check.dag, data, h, **backend, callbacks);
  return run;
}

TEST(Float16, TrainsWithScalingAndFloat32MasterParameters) {
  HalfRun run = TrainHalf(1000);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  const TrainResult& r = *run.result;
  bool scaling = false;
  for (const Decision& d : r.decisions) {
    scaling |= d.what == "gradient scaling on";
  }
  EXPECT_TRUE(scaling) << "the expert system turns scaling on for float16";
  for (double loss : run.losses) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_TRUE(AllFinite(r.state.params));
  EXPECT_GT(NotHalfExact(r.state.params), 0);
  EXPECT_GT(r.state.loss_scale, 1000);  // grew after clean steps
  EXPECT_LT(run.losses.back(), run.losses.front() * 0.5);
  ASSERT_TRUE(r.test.accuracy.has_value());
  EXPECT_GE(*r.test.accuracy, 0.9);
}

TEST(Float16, AnOverflowingScaleIsHalvedAndTheRunRecovers) {
  // 2^40 overflows float16 (max 65504) on every gradient at first: those
  // steps are skipped and the scale halves until the steps are clean.
  HalfRun run = TrainHalf(std::ldexp(1.0, 40));
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  const TrainResult& r = *run.result;
  EXPECT_LT(r.state.loss_scale, std::ldexp(1.0, 40));
  EXPECT_TRUE(AllFinite(r.state.params));
  // An epoch whose steps were all skipped has no training loss (NaN, null
  // in JSON): about 26 halvings at 12 steps an epoch, then clean epochs.
  int skipped_epochs = 0;
  for (double loss : run.losses) skipped_epochs += !std::isfinite(loss);
  EXPECT_GE(skipped_epochs, 1);
  EXPECT_LE(skipped_epochs, 3);
  EXPECT_TRUE(std::isfinite(run.losses.back()));
  ASSERT_TRUE(r.test.accuracy.has_value());
  EXPECT_GE(*r.test.accuracy, 0.9);
}

}  // namespace
}  // namespace webnnm::train
