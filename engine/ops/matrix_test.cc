// Shape and type rules of the matrix products: matmul and gemm.
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
using testing::ShapeOf;
using testing::T;

constexpr int64_t B = ir::kBatchDim;

TEST(Matmul, MultipliesTheLastTwoDimensions) {
  auto result = Infer("matmul", {F32({3, 4}), F32({4, 5})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kFloat32);
  EXPECT_THAT(result->front().shape, ElementsAre(3, 5));
}

TEST(Matmul, BroadcastsTheBatchDimensions) {
  EXPECT_THAT(ShapeOf(Infer("matmul", {F32({2, 1, 3, 4}), F32({5, 4, 6})})),
              ElementsAre(2, 5, 3, 6));
  EXPECT_THAT(ShapeOf(Infer("matmul", {F32({7, 3, 4}), F32({4, 6})})),
              ElementsAre(7, 3, 6));
  auto result = Infer("matmul", {F32({2, 3, 4}), F32({3, 4, 6})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
  EXPECT_THAT(result.status().message(), HasSubstr("do not broadcast"));
}

TEST(Matmul, SymbolicBatchPassesThrough) {
  EXPECT_THAT(ShapeOf(Infer("matmul", {F32({B, 3, 4}), F32({4, 5})})),
              ElementsAre(B, 3, 5));
  // The batch dimension as the rows of a 2-D a (a dense layer).
  EXPECT_THAT(ShapeOf(Infer("matmul", {F32({B, 4}), F32({4, 5})})),
              ElementsAre(B, 5));
}

TEST(Matmul, RejectsInnerDimensionMismatch) {
  auto result = Infer("matmul", {F32({3, 4}), F32({5, 6})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
  EXPECT_THAT(result.status().message(), HasSubstr("inner dimensions differ"));
}

TEST(Matmul, RejectsRankBelowTwo) {
  auto a = Infer("matmul", {F32({4}), F32({4, 5})});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(ir::BlamedOperand(a.status()), 0);
  EXPECT_THAT(a.status().message(), HasSubstr("rank at least 2"));
  auto b = Infer("matmul", {F32({3, 4}), F32({4})});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(ir::BlamedOperand(b.status()), 1);
  EXPECT_FALSE(Infer("matmul", {F32({}), F32({})}).ok());
}

TEST(Matmul, TakesFloatsOfOneType) {
  EXPECT_EQ(ShapeOf(Infer("matmul", {T(ir::DType::kFloat16, {2, 2}),
                                     T(ir::DType::kFloat16, {2, 2})})),
            (std::vector<int64_t>{2, 2}));
  EXPECT_FALSE(Infer("matmul", {T(ir::DType::kInt32, {2, 2}),
                                T(ir::DType::kInt32, {2, 2})})
                   .ok());
  EXPECT_FALSE(
      Infer("matmul", {F32({2, 2}), T(ir::DType::kFloat16, {2, 2})}).ok());
}

TEST(Matmul, NamesComeFromRowsOfAAndColumnsOfB) {
  auto result = Infer("matmul", {F32({B, 4}, {"batch", "features"}),
                                 F32({4, 10}, {"features", "units"})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().names, ElementsAre("batch", "units"));
}

TEST(Gemm, MultipliesTwoMatrices) {
  auto result = Infer("gemm", {F32({3, 4}), F32({4, 5})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(3, 5));
}

TEST(Gemm, TransposesBeforeMultiplying) {
  EXPECT_THAT(ShapeOf(Infer("gemm", {F32({4, 3}), F32({4, 5})},
                            A({{"aTranspose", true}}))),
              ElementsAre(3, 5));
  EXPECT_THAT(ShapeOf(Infer("gemm", {F32({3, 4}), F32({5, 4})},
                            A({{"bTranspose", true}}))),
              ElementsAre(3, 5));
  EXPECT_THAT(ShapeOf(Infer("gemm", {F32({4, 3}), F32({5, 4})},
                            A({{"aTranspose", true}, {"bTranspose", true}}))),
              ElementsAre(3, 5));
  // Without the transpose the same operands do not fit.
  auto result = Infer("gemm", {F32({3, 4}), F32({5, 4})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
}

TEST(Gemm, NeedsMatricesAndATwoDimensionalB) {
  // An `a` of rank 3 or more is the model language's batched gemm (a stack
  // of matrices; the DAG decomposes it, backends take 2-D gemm only).
  EXPECT_THAT(ShapeOf(Infer("gemm", {F32({2, 3, 4}), F32({4, 5})})),
              ElementsAre(2, 3, 5));
  EXPECT_EQ(ir::BlamedOperand(Infer("gemm", {F32({4}), F32({4, 5})}).status()),
            0);
  EXPECT_EQ(ir::BlamedOperand(Infer("gemm", {F32({3, 4}), F32({4})}).status()),
            1);
}

TEST(Gemm, CBroadcastsUnidirectionallyToTheResult) {
  for (const std::vector<int64_t>& c :
       {std::vector<int64_t>{}, {5}, {1, 5}, {3, 1}, {3, 5}}) {
    EXPECT_THAT(ShapeOf(Infer("gemm", {F32({3, 4}), F32({4, 5}), F32(c)})),
                ElementsAre(3, 5))
        << ir::ShapeToString(c);
  }
  for (const std::vector<int64_t>& c :
       std::vector<std::vector<int64_t>>{{4}, {3}, {2, 5}, {1, 3, 5}}) {
    auto result = Infer("gemm", {F32({3, 4}), F32({4, 5}), F32(c)});
    ASSERT_FALSE(result.ok()) << ir::ShapeToString(c);
    EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
  }
}

TEST(Gemm, CSharesTheOperandType) {
  auto result =
      Infer("gemm", {F32({3, 4}), F32({4, 5}), T(ir::DType::kFloat16, {5})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
}

TEST(Gemm, AlphaAndBetaAreNumbers) {
  EXPECT_THAT(ShapeOf(Infer("gemm", {F32({3, 4}), F32({4, 5}), F32({5})},
                            A({{"alpha", 0.5}, {"beta", 2}}))),
              ElementsAre(3, 5));
  auto result =
      Infer("gemm", {F32({3, 4}), F32({4, 5})}, A({{"alpha", "two"}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "alpha");
  EXPECT_EQ(ir::BlamedAttr(
                Infer("gemm", {F32({3, 4}), F32({4, 5})}, A({{"gamma", 1.0}}))
                    .status()),
            "gamma");
}

TEST(Gemm, TransposedNamesFollowTheTransposition) {
  auto result = Infer(
      "gemm",
      {F32({4, B}, {"features", "batch"}), F32({10, 4}, {"units", "features"})},
      A({{"aTranspose", true}, {"bTranspose", true}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(B, 10));
  EXPECT_THAT(result->front().names, ElementsAre("batch", "units"));
}

}  // namespace
}  // namespace webnnm::ops
