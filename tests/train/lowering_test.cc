// Attributes that carry the batch (or sequence) dimension are made
// concrete when a model is lowered for training: a slice over the
// features keeps the whole batch through `sizes` and trains.
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/train/lower.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

constexpr char kSliced[] = R"(
model:input shape=[6];
model:output shape=[3];
model:layers
    slice(starts=[0], sizes=[4]),
    dense(shape=[3], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";

TEST(Lowering, ASliceKeepsTheWholeBatch) {
  CheckResult check = CheckModel("s.wnm", kSliced);
  ASSERT_TRUE(check.ok) << check.rendered;
  absl::StatusOr<ir::Graph> lowered = Lower(*check.dag, {.batch = 5});
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  // Blobs of 3 classes in the first 3 of 6 features: the slice keeps them.
  Dataset data = testing::Blobs(300, 6, 3, 4, 3.0f);
  ASSERT_TRUE(data.Split(60, 20, 20, 1).ok());
  Hyperparameters h;
  h.epochs = 20;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.05;
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(*r->test.accuracy, 0.9);
  EXPECT_EQ(r->state.params.at("w1").size(), 4u * 3u);  // [4, 3]
}

}  // namespace
}  // namespace webnnm::train
