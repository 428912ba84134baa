// Integer model inputs are fed as their own type: the dataset's values
// (integers) written as int32, uint8, int8 … rather than float32 bytes,
// checked to be integers the type holds, and a model that casts them
// trains as the same model on float32 inputs does.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/train/feeder.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

std::string CastModel(const std::string& dtype) {
  return "model:input " + dtype + R"( shape=[4];
model:output shape=[2];
model:layers
    cast(dataType=float32),
    dense(shape=[8], activation=relu),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";
}

// Four small integers a sample; the class is whether the first exceeds
// the last.
Dataset Counts(int samples, uint32_t seed) {
  testing::Noise noise(seed);
  std::vector<float> values, labels;
  for (int i = 0; i < samples; ++i) {
    for (int f = 0; f < 4; ++f) {
      values.push_back(static_cast<float>(static_cast<int>((noise() + 0.5f) * 8)));
    }
    const float* row = values.data() + i * 4;
    labels.push_back(row[0] > row[3] ? 1 : 0);
  }
  return Dataset::Make("counts", 4, std::move(values), 1, std::move(labels),
                       true, {"no", "yes"});
}

Hyperparameters Quick() {
  Hyperparameters h;
  h.epochs = 40;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.05;
  return h;
}

TEST(InputTypes, IntegerInputsTrainAsTheirFloatTwin) {
  auto backend = backends::CreateBackend("cpu");
  Dataset data = Counts(400, 3);
  ASSERT_TRUE(data.Split(60, 20, 20, 1).ok());
  CheckResult f = CheckModel("f.wnm", CastModel("float32"));
  ASSERT_TRUE(f.ok) << f.rendered;
  absl::StatusOr<TrainResult> reference = Train(*f.dag, data, Quick(), **backend);
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_GT(*reference->test.accuracy, 0.85);
  for (const char* dtype : {"int32", "uint32", "int8", "uint8", "int64"}) {
    CheckResult c = CheckModel("i.wnm", CastModel(dtype));
    ASSERT_TRUE(c.ok) << c.rendered;
    absl::StatusOr<TrainResult> r = Train(*c.dag, data, Quick(), **backend);
    ASSERT_TRUE(r.ok()) << dtype << ": " << r.status();
    // The cast makes the same float32 values: the same run, bit for bit.
    EXPECT_EQ(r->state.params, reference->state.params) << dtype;
    EXPECT_EQ(*r->test.accuracy, *reference->test.accuracy) << dtype;
  }
}

TEST(InputTypes, ValuesAnIntegerTypeCannotHoldAreRefused) {
  const OutputSpec cce{.name = "model",
                       .loss = LossKind::kCategoricalCrossEntropy};
  CheckResult c = CheckModel("i.wnm", CastModel("uint8"));
  ASSERT_TRUE(c.ok) << c.rendered;
  Dataset half = Dataset::Make("h", 4, {1, 2, 3, 4, 1, 2.5f, 3, 4}, 1, {0, 1},
                               true, {"a", "b"});
  absl::Status s = CheckShapes(*c.dag, half, {cce});
  EXPECT_THAT(s.message(),
              HasSubstr("the model input 'model' takes uint8 values, but "
                        "sample 2 holds 2.5 at feature 2 (integers from 0 to "
                        "255)"));
  Dataset negative = Dataset::Make("n", 4, {1, 2, 3, -1}, 1, {0}, true,
                                   {"a", "b"});
  EXPECT_THAT(CheckShapes(*c.dag, negative, {cce}).message(),
              HasSubstr("holds -1 at feature 4"));
  Dataset big = Dataset::Make("b", 4, {1, 2, 3, 300}, 1, {0}, true,
                              {"a", "b"});
  EXPECT_FALSE(CheckShapes(*c.dag, big, {cce}).ok());
  // int8 takes the negative one.
  CheckResult s8 = CheckModel("s.wnm", CastModel("int8"));
  ASSERT_TRUE(s8.ok) << s8.rendered;
  EXPECT_TRUE(CheckShapes(*s8.dag, negative, {cce}).ok());
}

}  // namespace
}  // namespace webnnm::train
