// Shape and type rules of the high-level operations that the DAG builder
// decomposes (residual, dropout, reduceVariance, logSoftmax, attend) and of
// the internal randomUniform.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/ops/op_test_util.h"

namespace webnnm::ops {
namespace {

using testing::A;
using ::testing::ElementsAre;
using testing::F32;
using ::testing::HasSubstr;
using testing::Infer;
using ::testing::IsEmpty;
using testing::ShapeOf;
using testing::T;

using Ints = std::vector<int64_t>;
constexpr int64_t B = ir::kBatchDim;

TEST(Residual, AddsTensorsOfTheSameShape) {
  auto result = Infer("residual", {F32({B, 16}), F32({B, 16})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(B, 16));
  EXPECT_TRUE(
      Infer("residual", {T(ir::DType::kInt32, {3}), T(ir::DType::kInt32, {3})})
          .ok());
}

TEST(Residual, DoesNotBroadcast) {
  for (const Ints& to : {Ints{16}, Ints{1, 16}, Ints{B, 8}}) {
    auto result = Infer("residual", {F32({B, 16}), F32(to)});
    ASSERT_FALSE(result.ok()) << ir::ShapeToString(to);
    EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
    EXPECT_THAT(result.status().message(), HasSubstr("different shapes"));
  }
  EXPECT_FALSE(Infer("residual", {F32({4}), T(ir::DType::kFloat16, {4})}).ok());
}

TEST(Dropout, KeepsShapeForProbabilitiesStrictlyBetweenZeroAndOne) {
  EXPECT_THAT(ShapeOf(Infer("dropout", {F32({B, 8})}, A({{"p", 0.2}}))),
              ElementsAre(B, 8));
  EXPECT_TRUE(Infer("dropout", {F32({8})}, A({{"p", 0.999}})).ok());
  for (double p : {0.0, 1.0, -0.1, 1.5, std::nan("")}) {
    auto result = Infer("dropout", {F32({8})}, A({{"p", p}}));
    ASSERT_FALSE(result.ok()) << p;
    EXPECT_EQ(ir::BlamedAttr(result.status()), "p");
  }
}

TEST(Dropout, NeedsPAndAFloatInput) {
  auto missing = Infer("dropout", {F32({8})});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(ir::BlamedAttr(missing.status()), "p");
  EXPECT_FALSE(
      Infer("dropout", {T(ir::DType::kInt32, {8})}, A({{"p", 0.5}})).ok());
  EXPECT_STREQ(ir::FindOp("dropout")->positional_attr, "p");
}

TEST(ReduceVariance, KeepsDimensionsByDefault) {
  EXPECT_THAT(ShapeOf(Infer("reduceVariance", {F32({2, 3, 4})},
                            A({{"axes", Ints{2}}}))),
              ElementsAre(2, 3, 1));
  EXPECT_THAT(ShapeOf(Infer("reduceVariance", {F32({2, 3, 4})})),
              ElementsAre(1, 1, 1));
  auto dropped = Infer("reduceVariance", {F32({2, 3, 4})},
                       A({{"axes", Ints{0, 2}}, {"keepDimensions", false}}));
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_THAT(dropped->front().shape, ElementsAre(3));
}

TEST(ReduceVariance, ChecksAxesAndTypes) {
  EXPECT_EQ(ir::BlamedAttr(Infer("reduceVariance", {F32({2, 3})},
                                 A({{"axes", Ints{0, 0}}}))
                               .status()),
            "axes");
  EXPECT_EQ(ir::BlamedAttr(
                Infer("reduceVariance", {F32({2, 3})}, A({{"axes", Ints{2}}}))
                    .status()),
            "axes");
  EXPECT_FALSE(Infer("reduceVariance", {T(ir::DType::kInt32, {2, 3})}).ok());
  auto scalar = Infer("reduceVariance", {F32({})});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_THAT(scalar->front().shape, IsEmpty());
}

TEST(LogSoftmax, KeepsShapeAndChecksTheAxis) {
  EXPECT_THAT(ShapeOf(Infer("logSoftmax", {F32({B, 10})})), ElementsAre(B, 10));
  EXPECT_THAT(ShapeOf(Infer("logSoftmax", {F32({4, 10})}, A({{"axis", 0}}))),
              ElementsAre(4, 10));
  EXPECT_EQ(ir::BlamedAttr(
                Infer("logSoftmax", {F32({4, 10})}, A({{"axis", 2}})).status()),
            "axis");
  EXPECT_EQ(ir::BlamedOperand(Infer("logSoftmax", {F32({})}).status()), 0);
  EXPECT_FALSE(Infer("logSoftmax", {T(ir::DType::kInt32, {4})}).ok());
}

// Self-attention over [batch, 7 tokens, 32 features].
TEST(Attend, OutputHasTheValueSize) {
  auto result = Infer(
      "attend", {F32({B, 7, 32}), F32({32, 64}), F32({32, 64}), F32({32, 48})},
      A({{"heads", 4}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(B, 7, 48));
}

TEST(Attend, CrossAttentionProjectsTheSource) {
  const ir::TensorType x = F32({B, 7, 32}), to = F32({B, 9, 24});
  EXPECT_THAT(ShapeOf(Infer("attend", {x, F32({32, 16}), F32({24, 16}),
                                       F32({24, 8}), to})),
              ElementsAre(B, 7, 8));
  // k and v take the source's features, not the input's.
  auto k = Infer("attend", {x, F32({32, 16}), F32({32, 16}), F32({24, 8}), to});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(ir::BlamedOperand(k.status()), 2);
  auto v = Infer("attend", {x, F32({32, 16}), F32({24, 16}), F32({32, 8}), to});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(ir::BlamedOperand(v.status()), 3);
  auto batch = Infer("attend", {x, F32({32, 16}), F32({24, 16}), F32({24, 8}),
                                F32({2, 9, 24})});
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(ir::BlamedOperand(batch.status()), 4);
}

TEST(Attend, ProjectionShapesMustAgree) {
  const ir::TensorType x = F32({B, 7, 32});
  auto q = Infer("attend", {x, F32({16, 64}), F32({32, 64}), F32({32, 64})});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(ir::BlamedOperand(q.status()), 1);
  auto k = Infer("attend", {x, F32({32, 64}), F32({32, 32}), F32({32, 64})});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(ir::BlamedOperand(k.status()), 2);
  EXPECT_FALSE(Infer("attend", {F32({7, 32}), F32({32, 64}), F32({32, 64}),
                                F32({32, 64})})
                   .ok());
  EXPECT_FALSE(
      Infer("attend", {x, F32({32, 64, 1}), F32({32, 64}), F32({32, 64})})
          .ok());
}

TEST(Attend, HeadsMustDivideQueryAndValueSizes) {
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({B, 7, 32}), F32({32, 64}), F32({32, 64}), F32({32, 48})};
  EXPECT_TRUE(Infer("attend", operands, A({{"heads", 8}})).ok());
  for (int64_t heads : {5, 32, 0, -2}) {
    auto result = Infer("attend", operands, A({{"heads", heads}}));
    ASSERT_FALSE(result.ok()) << heads;
    EXPECT_EQ(ir::BlamedAttr(result.status()), "heads");
  }
}

TEST(Attend, CausalNeedsSourceAndInputOfEqualLength) {
  const ir::TensorType x = F32({B, 7, 32});
  EXPECT_TRUE(Infer("attend", {x, F32({32, 16}), F32({32, 16}), F32({32, 16})},
                    A({{"causal", true}}))
                  .ok());
  EXPECT_TRUE(
      Infer("attend",
            {x, F32({32, 16}), F32({24, 16}), F32({24, 16}), F32({B, 7, 24})},
            A({{"causal", true}}))
          .ok());
  auto result =
      Infer("attend",
            {x, F32({32, 16}), F32({24, 16}), F32({24, 16}), F32({B, 9, 24})},
            A({{"causal", true}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "causal");
}

TEST(RandomUniform, HasTheInputTypeAndShape) {
  auto result = Infer("randomUniform", {T(ir::DType::kFloat16, {B, 3, 4})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kFloat16);
  EXPECT_THAT(result->front().shape, ElementsAre(B, 3, 4));
  EXPECT_FALSE(Infer("randomUniform", {T(ir::DType::kInt32, {3})}).ok());
  EXPECT_EQ(ir::FindOp("randomUniform")->category, ir::OpCategory::kInternal);
}

}  // namespace
}  // namespace webnnm::ops
