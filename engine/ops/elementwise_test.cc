// Shape and type rules of the element-wise operations: unary math,
// activations, binary arithmetic with broadcasting, comparisons, logic.
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

TEST(Unary, KeepsTypeAndShape) {
  auto result = Infer("exp", {F32({2, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kFloat32);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 3));
}

TEST(Unary, RejectsTypesWebNNDoesNotAllow) {
  auto result = Infer("exp", {T(ir::DType::kInt32, {4})});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("float32, float16"));
  EXPECT_EQ(ir::BlamedOperand(result.status()), 0);
  EXPECT_TRUE(Infer("abs", {T(ir::DType::kInt8, {4})}).ok());
  EXPECT_FALSE(Infer("abs", {T(ir::DType::kUint8, {4})}).ok());
}

TEST(Binary, BroadcastsBothWays) {
  EXPECT_THAT(ShapeOf(Infer("add", {F32({2, 1, 4}), F32({3, 1})})),
              ElementsAre(2, 3, 4));
  EXPECT_THAT(ShapeOf(Infer("mul", {F32({}), F32({5})})), ElementsAre(5));
  auto bad = Infer("sub", {F32({2, 3}), F32({4})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("do not broadcast"));
  EXPECT_EQ(ir::BlamedOperand(bad.status()), 1);
}

TEST(Binary, SymbolicBatchBroadcastsWithOneOnly) {
  EXPECT_THAT(ShapeOf(Infer("add", {F32({ir::kBatchDim, 4}), F32({4})})),
              ElementsAre(ir::kBatchDim, 4));
  EXPECT_THAT(ShapeOf(Infer("add", {F32({ir::kBatchDim, 4}), F32({1, 4})})),
              ElementsAre(ir::kBatchDim, 4));
  EXPECT_FALSE(Infer("add", {F32({ir::kBatchDim, 4}), F32({3, 4})}).ok());
}

TEST(Binary, OperandsMustShareTheirType) {
  auto result = Infer("add", {F32({2}), T(ir::DType::kFloat16, {2})});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("same data type"));
}

TEST(Binary, NamesFollowTheOperandThatGivesTheSize) {
  auto result =
      Infer("add", {F32({ir::kBatchDim, 3}, {"batch", "classes"}), F32({3})});
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(result->front().names, ElementsAre("batch", "classes"));
}

TEST(Comparison, GivesUint8) {
  auto result = Infer("greater", {F32({2, 2}), F32({2})});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->front().dtype, ir::DType::kUint8);
}

TEST(Logical, TakesUint8Only) {
  EXPECT_TRUE(Infer("logicalAnd",
                    {T(ir::DType::kUint8, {2}), T(ir::DType::kUint8, {2})})
                  .ok());
  EXPECT_FALSE(Infer("logicalNot", {F32({2})}).ok());
}

TEST(Clamp, RejectsMinAboveMax) {
  auto result =
      Infer("clamp", {F32({2})}, A({{"minValue", 2.0}, {"maxValue", 1.0}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "minValue");
}

}  // namespace
}  // namespace webnnm::ops
