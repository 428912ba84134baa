// The configured size limits (ir::Limits): every rule rejects a result
// whose dimension, byte length or rank exceeds them.
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
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

using Ints = std::vector<int64_t>;
constexpr int64_t B = ir::kBatchDim;

ir::Limits DimensionLimit(int64_t max_dimension) {
  ir::Limits limits;
  limits.max_dimension = max_dimension;
  return limits;
}
ir::Limits ByteLimit(int64_t max_tensor_bytes) {
  ir::Limits limits;
  limits.max_tensor_bytes = max_tensor_bytes;
  return limits;
}
ir::Limits RankLimit(int max_rank) {
  ir::Limits limits;
  limits.max_rank = max_rank;
  return limits;
}

TEST(Limits, DefaultsAreWebNNs32BitSizes) {
  const ir::Limits limits;
  EXPECT_EQ(limits.max_dimension, 2147483647);
  EXPECT_EQ(limits.max_tensor_bytes, 2147483647);
  EXPECT_EQ(limits.max_rank, 8);
}

TEST(Limits, RejectsADimensionAboveTheLimit) {
  auto result = Infer("tile", {F32({1000})}, A({{"repetitions", Ints{3}}}),
                      DimensionLimit(2000));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("tile would have a dimension of 3000, more than the "
                        "limit of 2000"));
  EXPECT_THAT(
      ShapeOf(Infer("tile", {F32({1000})}, A({{"repetitions", Ints{2}}}),
                    DimensionLimit(2000))),
      ElementsAre(2000));
}

TEST(Limits, DefaultDimensionLimitIsTwoToTheThirtyOneMinusOne) {
  auto result = Infer("tile", {T(ir::DType::kUint8, {65536})},
                      A({{"repetitions", Ints{32768}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("2147483648"));
  EXPECT_FALSE(
      Infer("concat",
            {T(ir::DType::kUint8, {2147483647}), T(ir::DType::kUint8, {1})},
            A({{"axis", 0}}))
          .ok());
}

TEST(Limits, AttributeValuesAboveTheDimensionLimitAreRejected) {
  auto result = Infer("tile", {F32({1})}, A({{"repetitions", Ints{5000}}}),
                      DimensionLimit(2000));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "repetitions");
  EXPECT_THAT(result.status().message(),
              HasSubstr("exceeds the limit of 2000"));
}

TEST(Limits, RejectsATensorAboveTheByteLimit) {
  // 1000 float32 values are 4000 bytes.
  auto result = Infer("expand", {F32({1})}, A({{"newShape", Ints{1000}}}),
                      ByteLimit(3999));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("larger than the limit of 3999 bytes"));
  EXPECT_TRUE(Infer("expand", {F32({1})}, A({{"newShape", Ints{1000}}}),
                    ByteLimit(4000))
                  .ok());
}

TEST(Limits, AByteLengthThatOverflowsIsBeyondEveryLimit) {
  // The model fuzzer's input: an input of 666,666,666,666,666,663 rows of
  // four float32 values (its bytes do not fit 64 bits).
  EXPECT_EQ(ir::ByteLength(ir::DType::kFloat32, int64_t{2666666666666666652}),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ir::ByteLength(ir::DType::kFloat32, 1000), 4000);
  CheckResult check = CheckModel(
      "huge.wnm",
      "model:input shape={rows:666666666666666663, cols:4};\n"
      "model:output shape=[4];\n"
      "model:layers relu();\n");
  EXPECT_FALSE(check.ok);
  EXPECT_THAT(check.rendered, HasSubstr("larger than the limit"));
}

TEST(Limits, ByteLengthFollowsTheDataType) {
  const ir::Attrs attrs = A({{"newShape", Ints{1000}}});
  EXPECT_TRUE(
      Infer("expand", {T(ir::DType::kFloat16, {1})}, attrs, ByteLimit(2000))
          .ok());
  EXPECT_FALSE(
      Infer("expand", {T(ir::DType::kInt64, {1})}, attrs, ByteLimit(7999))
          .ok());
  // Four-bit types pack two values a byte.
  EXPECT_TRUE(
      Infer("expand", {T(ir::DType::kInt4, {1})}, attrs, ByteLimit(500)).ok());
  EXPECT_FALSE(
      Infer("expand", {T(ir::DType::kInt4, {1})}, attrs, ByteLimit(499)).ok());
}

TEST(Limits, SymbolicDimensionsCountAsOne) {
  EXPECT_TRUE(Infer("expand", {F32({B, 1})}, A({{"newShape", Ints{B, 500}}}),
                    ByteLimit(2000))
                  .ok());
  EXPECT_FALSE(Infer("expand", {F32({B, 1})}, A({{"newShape", Ints{B, 501}}}),
                     ByteLimit(2000))
                   .ok());
}

TEST(Limits, ElementCountOverflowIsRejected) {
  // 3 * (2^31 - 1) elements overflow no int64 but (2^31 - 1)^3 does.
  auto result =
      Infer("expand", {F32({1, 1, 1})},
            A({{"newShape", Ints{2147483647, 2147483647, 2147483647}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("larger than the limit"));
}

TEST(Limits, RejectsARankAboveTheLimit) {
  auto result = Infer("reshape", {F32({1})},
                      A({{"newShape", Ints{1, 1, 1, 1, 1, 1, 1, 1, 1}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("reshape would have rank 9, more than the limit of 8"));
  EXPECT_TRUE(Infer("reshape", {F32({1})},
                    A({{"newShape", Ints{1, 1, 1, 1, 1, 1, 1, 1}}}))
                  .ok());
  auto low = Infer("expand", {F32({2})}, A({{"newShape", Ints{1, 1, 1, 2}}}),
                   RankLimit(3));
  ASSERT_FALSE(low.ok());
  EXPECT_THAT(low.status().message(), HasSubstr("limit of 3"));
}

TEST(Limits, GatherCanRaiseTheRankPastTheLimit) {
  auto result =
      Infer("gather", {F32({2, 2, 2}), T(ir::DType::kInt32, {2, 2, 2})},
            A({{"axis", 1}}), RankLimit(4));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("rank 5"));
}

TEST(Limits, EveryOutputOfSplitIsChecked) {
  auto result =
      Infer("split", {F32({10})}, A({{"splits", Ints{1, 9}}}), ByteLimit(20));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("20 bytes"));
  EXPECT_TRUE(
      Infer("split", {F32({10})}, A({{"splits", 2}}), ByteLimit(20)).ok());
}

TEST(Limits, ConvolutionResultsAreChecked) {
  // 1 x 64 x 30 x 30 float32 = 230400 bytes.
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({1, 3, 32, 32}), F32({64, 3, 3, 3})};
  EXPECT_TRUE(Infer("conv2d", operands, {}, ByteLimit(230400)).ok());
  EXPECT_FALSE(Infer("conv2d", operands, {}, ByteLimit(230399)).ok());
  EXPECT_FALSE(Infer("convTranspose2d",
                     {F32({1, 1, 1000, 1000}), F32({1, 1, 3, 3})},
                     A({{"strides", Ints{4, 4}}}), DimensionLimit(3000))
                   .ok());
}

TEST(Limits, ResampleScalesAreCheckedAgainstTheDimensionLimit) {
  auto result = Infer("resample2d", {F32({1, 1, 100, 100})},
                      A({{"scales", std::vector<double>{1e9, 1.0}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "scales");
}

}  // namespace
}  // namespace webnnm::ops
