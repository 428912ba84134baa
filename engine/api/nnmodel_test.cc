// The NNModel API: the specification's inference example (int32 input cast
// lazily to float16 and float32), contexts and batch sizes, bad inputs as
// errors, and training and testing on a bound dataset.
#include "engine/api/nnmodel.h"

#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/train/synthetic_data.h"

namespace webnnm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kInference[] = R"(
model:name test-model;
model:input int32 shape=[5];
model:output float32 shape=[5];
model:layers
    add(1, dataType=float16),
    pow(2);
)";

TEST(NNModel, RunsTheSpecsInferenceExample) {
  auto model = NNModel::Create({.source = kInference});
  ASSERT_TRUE(model.ok()) << model.status();
  auto context = (*model)->CreateContext();
  ASSERT_TRUE(context.ok()) << context.status();
  std::vector<double> data = {1, 2, 3, 4, 5};
  ASSERT_TRUE((*context)->SetData(data).ok());
  auto input = (*context)->Input();
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(input->dtype, ir::DType::kInt32);
  EXPECT_THAT(input->values, ElementsAre(1, 2, 3, 4, 5));
  EXPECT_FALSE((*context)->Output().ok());  // not run yet
  ASSERT_TRUE((*model)->Run(**context).ok());
  auto output = (*context)->Output();
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->dtype, ir::DType::kFloat32);
  EXPECT_THAT(output->values, ElementsAre(4, 9, 16, 25, 36));
  EXPECT_EQ(NNModel::View(*output), "[4, 9, 16, 25, 36] (float32 [1, 5])");
}

TEST(NNModel, BatchSizesAndRandomInputs) {
  auto model = NNModel::Create({.source = kInference});
  ASSERT_TRUE(model.ok());
  auto context = (*model)->CreateContext();
  ASSERT_TRUE(context.ok());
  ASSERT_TRUE((*context)->SetBatchSize(3).ok());
  ASSERT_TRUE((*context)->Randomize("", -10, 10, 7).ok());
  ASSERT_TRUE((*model)->Run(**context).ok());
  auto input = (*context)->Input();
  auto output = (*context)->Output();
  ASSERT_TRUE(input.ok() && output.ok());
  ASSERT_EQ(output->values.size(), 15u);
  bool varied = false;
  for (size_t i = 0; i < 15; ++i) {
    EXPECT_GE(input->values[i], -10);
    EXPECT_LE(input->values[i], 10);
    double x = input->values[i] + 1;
    EXPECT_DOUBLE_EQ(output->values[i], x * x);
    varied |= input->values[i] != input->values[0];
  }
  EXPECT_TRUE(varied);
}

// A context copies the parameters only when they changed: runs after
// SetParameters see the new ones, in every context, and a context made
// after the change too.
TEST(NNModel, ContextsRunWithTheCurrentParameters) {
  constexpr char kDense[] = R"(
model:name dense;
model:input shape=[2];
model:output shape=[1];
model:layers
    matmul(w);
)";
  auto model = NNModel::Create({.source = kDense});
  ASSERT_TRUE(model.ok()) << model.status();
  auto first = (*model)->CreateContext();
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->SetData(std::vector<double>{1, 2}).ok());
  ASSERT_EQ((*model)->parameters().size(), 1u);
  const std::string w = (*model)->parameters().begin()->first;
  auto run = [&](Context& c) {
    EXPECT_TRUE((*model)->Run(c).ok());
    auto out = c.Output();
    return out.ok() ? out->values.at(0) : -1.0;
  };
  ASSERT_TRUE((*model)->SetParameters({{w, {3, 4}}}).ok());
  EXPECT_EQ(run(**first), 11);  // 1*3 + 2*4
  EXPECT_EQ(run(**first), 11);  // unchanged
  auto second = (*model)->CreateContext();
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE((*second)->SetData(std::vector<double>{1, 2}).ok());
  EXPECT_EQ(run(**second), 11);
  ASSERT_TRUE((*model)->SetParameters({{w, {-1, 5}}}).ok());
  EXPECT_EQ(run(**first), 9);  // both contexts see the change
  EXPECT_EQ(run(**second), 9);
  ASSERT_TRUE((*first)->SetBatchSize(2).ok());  // recompiled
  ASSERT_TRUE((*first)->SetData(std::vector<double>{1, 2, 0, 1}).ok());
  EXPECT_EQ(run(**first), 9);
}

// A sequenced input takes the context's length: an LSTM over the steps
// sees every step given.
TEST(NNModel, SequenceLengths) {
  auto model = NNModel::Create({.source = R"(
model:input shape={sequence, features: 2};
model:output shape=[2];
model:layers lstm(w, r, hiddenSize=2);
)"});
  ASSERT_TRUE(model.ok()) << model.status();
  auto context = (*model)->CreateContext();
  ASSERT_TRUE(context.ok());
  EXPECT_EQ((*context)->sequence_length(), 1);
  ASSERT_TRUE((*context)->SetSequenceLength(3).ok());
  EXPECT_EQ((*context)->sequence_length(), 3);
  auto input = (*context)->Input();
  ASSERT_TRUE(input.ok());
  EXPECT_THAT(input->shape, ElementsAre(1, 3, 2));
  // Two values are one step, not three.
  absl::Status one = (*context)->SetData(std::vector<double>{1, 2});
  EXPECT_THAT(one.message(), HasSubstr("holds 6 values"));
  ASSERT_TRUE((*context)->SetData(std::vector<double>{1, 2, 3, 4, 5, 6}).ok());
  ASSERT_TRUE((*model)->Run(**context).ok());
  auto three = (*context)->Output();
  ASSERT_TRUE(three.ok());
  // The same first step alone ends elsewhere: the later steps count.
  ASSERT_TRUE((*context)->SetSequenceLength(1).ok());
  ASSERT_TRUE((*context)->SetData(std::vector<double>{1, 2}).ok());
  ASSERT_TRUE((*model)->Run(**context).ok());
  auto first = (*context)->Output();
  ASSERT_TRUE(first.ok());
  EXPECT_NE(three->values, first->values);
  EXPECT_FALSE((*context)->SetSequenceLength(0).ok());
}

TEST(NNModel, BadInputsAreErrors) {
  auto bad = NNModel::Create({.source = "model:input shape=[4];"});
  ASSERT_FALSE(bad.ok());
  auto model = NNModel::Create({.source = kInference});
  ASSERT_TRUE(model.ok());
  auto context = (*model)->CreateContext();
  ASSERT_TRUE(context.ok());
  std::vector<double> three = {1, 2, 3};
  EXPECT_THAT(std::string((*context)->SetData(three).message()),
              HasSubstr("holds 5 values"));
  EXPECT_THAT(std::string((*context)->SetData("nope", three).message()),
              HasSubstr("no input 'nope'"));
  EXPECT_FALSE((*context)->SetBatchSize(0).ok());
  EXPECT_FALSE((*model)->Test().ok());  // no dataset
  EXPECT_THAT(std::string((*model)->SetParameters({{"w9", {1}}}).message()),
              HasSubstr("not a parameter"));
}

constexpr char kIris[] = R"(
model:name test-model;
model:loss categoricalCrossEntropy;
model:input shape=[4];
model:output shape=[3];
model:layers
    dense(shape=[8], activation=relu),
    dense(shape=[3], activation=softmax);
dense:layers
    matmul(w),
    add(b),
    activation();
)";

TEST(NNModel, TrainsAndTestsOnItsDataset) {
  train::Dataset data = train::testing::Blobs(150, 4, 3, 5);
  ASSERT_TRUE(data.Split(60, 20, 20, 1).ok());
  auto model = NNModel::Create({.source = kIris, .dataset = &data});
  ASSERT_TRUE(model.ok()) << model.status();
  auto before = (*model)->Test();
  ASSERT_TRUE(before.ok()) << before.status();
  train::Hyperparameters h;
  h.epochs = 30;
  h.optimizer = train::OptimizerKind::kSgdm;
  h.lr = 0.05;
  h.seeds = 5;
  h.batch_size = 16;
  auto trained = (*model)->Train(h);
  ASSERT_TRUE(trained.ok()) << trained.status();
  auto after = (*model)->Test();
  ASSERT_TRUE(after.ok());
  EXPECT_LT(after->loss, before->loss);
  ASSERT_TRUE(after->accuracy.has_value());
  EXPECT_GE(*after->accuracy, 0.9);
  EXPECT_EQ(after->loss, trained->test.loss);  // the kept parameters
  // Inference with the trained parameters classifies a clear sample.
  auto context = (*model)->CreateContext();
  ASSERT_TRUE(context.ok());
  std::vector<double> sample = {0, 0, 1.5, 0};
  ASSERT_TRUE((*context)->SetData(sample).ok());
  ASSERT_TRUE((*model)->Run(**context).ok());
  auto p = (*context)->Output();
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p->values[2], 0.5);
}

}  // namespace
}  // namespace webnnm
