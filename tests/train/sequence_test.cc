// Sequences bound from the data: a {sequence, features: F} input takes
// samples of T·F values as T steps, and a recurrent model trains over the
// real length (a label that only the first of six steps decides needs the
// whole sequence read in order); the length is checked against the data.
#include "engine/train/sequence.h"

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

std::string Recurrent(const std::string& cell) {
  return R"(
model:name first-step;
model:input shape={sequence, features: 2};
model:output shape=[2];
model:layers
    )" + cell + R"((w, r, hiddenSize=8, bias=b, recurrentBias=rb),
    dense(shape=[2], activation=softmax);
dense:layers
    matmul(w),
    add(b),
    activation();
)";
}

// `steps` steps of 2 values each; the class is whether the first step's
// first value is positive, so a model must carry it through the others.
Dataset FirstStepData(int samples, int steps, uint32_t seed) {
  testing::Noise noise(seed);
  std::vector<float> values, labels;
  for (int i = 0; i < samples; ++i) {
    for (int v = 0; v < steps * 2; ++v) values.push_back(2 * noise());
    labels.push_back(values[static_cast<size_t>(i) * steps * 2] > 0 ? 1 : 0);
  }
  return Dataset::Make("first-step", steps * 2, std::move(values), 1,
                       std::move(labels), true, {"negative", "positive"});
}

TEST(Sequence, TheLengthComesFromTheData) {
  CheckResult check = CheckModel("s.wnm", Recurrent("lstm"));
  ASSERT_TRUE(check.ok) << check.rendered;
  absl::StatusOr<int64_t> t = SequenceLength(*check.dag, FirstStepData(4, 6, 1));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t, 6);
  // 7 values are no whole number of steps of 2.
  Dataset odd = Dataset::Make("odd", 7, std::vector<float>(28, 0.0f), 1,
                              {0, 1, 0, 1}, true, {"a", "b"});
  t = SequenceLength(*check.dag, odd);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(),
              HasSubstr("the model input 'model' is a sequence of steps of 2 "
                        "values ([2] a step), but the dataset's samples have "
                        "7 features: not a whole number of steps"));
  // CheckShapes says the same before anything compiles.
  absl::Status shapes = CheckShapes(
      *check.dag, odd,
      {OutputSpec{.name = "model",
                  .loss = LossKind::kCategoricalCrossEntropy}});
  EXPECT_THAT(shapes.message(), HasSubstr("not a whole number of steps"));
  // A model without a sequence: 1.
  CheckResult flat = CheckModel("f.wnm", R"(
model:name flat;
model:input shape=[7];
model:output shape=[2];
model:layers dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(flat.ok) << flat.rendered;
  EXPECT_EQ(*SequenceLength(*flat.dag, odd), 1);
}

// The specification's steps= on a sequenced input declares the data's
// length: it checks, and the graphs still take the length from the data.
TEST(Sequence, DeclaredStepsAreCheckedAgainstTheData) {
  CheckResult check = CheckModel("s.wnm", R"(
model:input shape={sequence, features: 2};
model:output shape=[2];
model:layers
    lstm(w, r, hiddenSize=8, steps=6),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(check.ok) << check.rendered;
  EXPECT_EQ(check.dag->declared_steps, 6);
  EXPECT_EQ(*SequenceLength(*check.dag, FirstStepData(4, 6, 1)), 6);
  absl::StatusOr<int64_t> t = SequenceLength(*check.dag, FirstStepData(4, 5, 1));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(),
              HasSubstr("declares steps=6, but the dataset's samples are "
                        "sequences of 5 steps"));
}

void ExpectTrainsOverTheWholeSequence(const std::string& cell) {
  CheckResult check = CheckModel("s.wnm", Recurrent(cell));
  ASSERT_TRUE(check.ok) << check.rendered;
  Dataset data = FirstStepData(600, 6, 5);
  ASSERT_TRUE(data.Split(60, 20, 20, 3).ok());
  Hyperparameters h;
  h.epochs = 60;
  h.seeds = 5;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.1;
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  // Chance is 0.5; the last five steps are noise to the label.
  EXPECT_GT(*r->test.accuracy, 0.9) << cell;
}

TEST(Sequence, AnLstmTrainsOverTheWholeSequence) {
  ExpectTrainsOverTheWholeSequence("lstm");
}

TEST(Sequence, AGruTrainsOverTheWholeSequence) {
  ExpectTrainsOverTheWholeSequence("gru");
}

// The specification's initialHiddenState is [batch, hiddenSize]: a second
// input feeds it, and a label that only that state decides trains through
// the recurrence (three steps of noise after it).
TEST(Sequence, AnInitialHiddenStateIsBatchByHidden) {
  CheckResult check = CheckModel("h.wnm", R"(
h0:input shape=[8];
model:input shape={sequence, features: 2};
model:output shape=[2];
model:layers
    lstm(w, r, hiddenSize=8, initialHiddenState=h0),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(check.ok) << check.rendered;
  testing::Noise noise(11);
  const int n = 400;
  std::vector<float> steps, states, labels;
  for (int i = 0; i < n; ++i) {
    for (int v = 0; v < 3 * 2; ++v) steps.push_back(noise());
    for (int v = 0; v < 8; ++v) states.push_back(2 * noise());
    labels.push_back(states[static_cast<size_t>(i) * 8] > 0 ? 1 : 0);
  }
  Dataset data = Dataset::Make("states", 6, std::move(steps), 1,
                               std::move(labels), true, {"no", "yes"});
  data.SetFirstInput("model");
  ASSERT_TRUE(data.AddFeatures({.input = "h0", .width = 8, .values = states})
                  .ok());
  ASSERT_TRUE(data.Split(60, 20, 20, 2).ok());
  Hyperparameters h;
  h.epochs = 60;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.1;
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(*r->test.accuracy, 0.85);
  // A state of another width is named.
  CheckResult wrong = CheckModel("w.wnm", R"(
h0:input shape=[6];
model:input shape={sequence, features: 2};
model:output shape=[2];
model:layers
    lstm(w, r, hiddenSize=8, initialHiddenState=h0),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  EXPECT_FALSE(wrong.ok);
  EXPECT_THAT(wrong.rendered,
              HasSubstr("'initialHiddenState' of lstm must have shape "
                        "[batch, 8] (directions x hiddenSize)"));
}

}  // namespace
}  // namespace webnnm::train
