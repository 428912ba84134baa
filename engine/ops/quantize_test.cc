// Shape and type rules of the type conversions: quantizeLinear,
// dequantizeLinear and cast.
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

ir::TensorType U8(std::vector<int64_t> shape) {
  return T(ir::DType::kUint8, std::move(shape));
}

TEST(QuantizeLinear, ResultHasTheZeroPointType) {
  for (ir::DType type : {ir::DType::kUint8, ir::DType::kInt8, ir::DType::kInt32,
                         ir::DType::kInt4, ir::DType::kUint4}) {
    auto result =
        Infer("quantizeLinear", {F32({2, 4}), F32({2, 4}), T(type, {2, 4})});
    ASSERT_TRUE(result.ok()) << ir::DTypeName(type) << ": " << result.status();
    EXPECT_EQ(result->front().dtype, type);
    EXPECT_THAT(result->front().shape, ElementsAre(2, 4));
  }
}

TEST(QuantizeLinear, InputAndScaleAreFloatsOfOneType) {
  auto scale =
      Infer("quantizeLinear", {F32({4}), T(ir::DType::kFloat16, {4}), U8({4})});
  ASSERT_FALSE(scale.ok());
  EXPECT_EQ(ir::BlamedOperand(scale.status()), 1);
  EXPECT_FALSE(Infer("quantizeLinear", {T(ir::DType::kInt32, {4}),
                                        T(ir::DType::kInt32, {4}), U8({4})})
                   .ok());
  auto zero_point = Infer("quantizeLinear", {F32({4}), F32({4}), F32({4})});
  ASSERT_FALSE(zero_point.ok());
  EXPECT_EQ(ir::BlamedOperand(zero_point.status()), 2);
  EXPECT_FALSE(
      Infer("quantizeLinear", {F32({4}), F32({4}), T(ir::DType::kInt64, {4})})
          .ok());
}

TEST(QuantizeLinear, ScaleBroadcastsBlockwise) {
  // Blocks of 2 x 2, of 4 x 1 (per column) and one block.
  for (const std::vector<int64_t>& scale :
       {std::vector<int64_t>{2, 3}, {1, 6}, {4, 6}, {1, 1}}) {
    EXPECT_THAT(
        ShapeOf(Infer("quantizeLinear", {F32({4, 6}), F32(scale), U8(scale)})),
        ElementsAre(4, 6))
        << ir::ShapeToString(scale);
  }
  auto result = Infer("quantizeLinear", {F32({4, 6}), F32({3, 4}), U8({3, 4})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
  EXPECT_THAT(result.status().message(), HasSubstr("into blocks"));
  EXPECT_FALSE(
      Infer("quantizeLinear", {F32({4, 6}), F32({8, 6}), U8({8, 6})}).ok());
}

TEST(QuantizeLinear, ZeroPointHasTheScaleShape) {
  auto result = Infer("quantizeLinear", {F32({4, 6}), F32({2, 3}), U8({2, 1})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
}

TEST(QuantizeLinear, ScaleCannotOutrankTheInput) {
  EXPECT_EQ(ir::BlamedOperand(
                Infer("quantizeLinear", {F32({6}), F32({1, 6}), U8({1, 6})})
                    .status()),
            1);
}

// A lower-rank scale is right-aligned, as the WebNN conformance vectors
// expect (input [3, 4] with scale [2]).
TEST(QuantizeLinear, LowerRankScalesAreRightAligned) {
  EXPECT_TRUE(Infer("quantizeLinear", {F32({3, 4}), F32({2}), U8({2})}).ok());
  EXPECT_TRUE(Infer("dequantizeLinear", {U8({2, 4}), F32({}), U8({})}).ok());
}

// WebNN allows uint32 zero points (quantizeLinear) and uint32 inputs
// (dequantizeLinear).
TEST(QuantizeLinear, AcceptsUint32) {
  EXPECT_TRUE(
      Infer("quantizeLinear", {F32({4}), F32({4}), T(ir::DType::kUint32, {4})})
          .ok());
  EXPECT_TRUE(Infer("dequantizeLinear", {T(ir::DType::kUint32, {4}), F32({4}),
                                         T(ir::DType::kUint32, {4})})
                  .ok());
}

TEST(DequantizeLinear, ResultHasTheScaleType) {
  auto result = Infer("dequantizeLinear",
                      {U8({2, 4}), T(ir::DType::kFloat16, {2, 1}), U8({2, 1})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kFloat16);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 4));
  EXPECT_EQ(
      ShapeOf(Infer("dequantizeLinear", {T(ir::DType::kInt32, {3}), F32({3}),
                                         T(ir::DType::kInt32, {3})})),
      (std::vector<int64_t>{3}));
}

TEST(DequantizeLinear, InputAndZeroPointShareAQuantizedType) {
  auto mixed =
      Infer("dequantizeLinear", {U8({4}), F32({4}), T(ir::DType::kInt8, {4})});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(ir::BlamedOperand(mixed.status()), 2);
  auto input = Infer("dequantizeLinear", {F32({4}), F32({4}), F32({4})});
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(ir::BlamedOperand(input.status()), 0);
  EXPECT_FALSE(
      Infer("dequantizeLinear", {U8({4}), T(ir::DType::kInt32, {4}), U8({4})})
          .ok());
}

TEST(DequantizeLinear, ScaleBroadcastsBlockwise) {
  EXPECT_THAT(
      ShapeOf(Infer("dequantizeLinear", {U8({2, 8}), F32({2, 4}), U8({2, 4})})),
      ElementsAre(2, 8));
  EXPECT_FALSE(
      Infer("dequantizeLinear", {U8({2, 8}), F32({2, 3}), U8({2, 3})}).ok());
}

TEST(Cast, ConvertsToTheTargetType) {
  auto result =
      Infer("cast", {F32({2, 3}, {"rows", "cols"})}, A({{"type", "int64"}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kInt64);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 3));
  EXPECT_THAT(result->front().names, ElementsAre("rows", "cols"));
  auto back =
      Infer("cast", {T(ir::DType::kInt4, {5})}, A({{"type", "float16"}}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->front().dtype, ir::DType::kFloat16);
}

TEST(Cast, TargetTypeIsRequiredAndMustBeADataType) {
  auto missing = Infer("cast", {F32({2})});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(ir::BlamedAttr(missing.status()), "type");
  auto unknown = Infer("cast", {F32({2})}, A({{"type", "float64"}}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(ir::BlamedAttr(unknown.status()), "type");
  EXPECT_THAT(unknown.status().message(), HasSubstr("not a data type"));
  EXPECT_FALSE(Infer("cast", {F32({2})}, A({{"type", 1}})).ok());
}

TEST(Cast, DataTypeIsTheModelLanguageSpelling) {
  const ir::OpDef* cast = ir::FindOp("cast");
  ASSERT_NE(cast, nullptr);
  const ir::AttrSpec* type = cast->FindAttr("type");
  ASSERT_NE(type, nullptr);
  ASSERT_NE(type->alias, nullptr);
  EXPECT_STREQ(type->alias, "dataType");
  EXPECT_TRUE(type->required);
}

}  // namespace
}  // namespace webnnm::ops
