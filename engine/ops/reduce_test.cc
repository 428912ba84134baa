// Shape and type rules of the reductions: reduce* over axes, argMin/argMax
// along one axis, and cumulativeSum.
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

constexpr const char* kAllReductions[] = {
    "reduceL1",  "reduceL2",       "reduceLogSum", "reduceLogSumExp",
    "reduceMax", "reduceMean",     "reduceMin",    "reduceProduct",
    "reduceSum", "reduceSumSquare"};

TEST(Reduce, DefaultAxesReduceEverythingToAScalar) {
  for (const char* op : kAllReductions) {
    auto result = Infer(op, {F32({2, 3, 4})});
    ASSERT_TRUE(result.ok()) << op << ": " << result.status();
    EXPECT_THAT(result->front().shape, IsEmpty()) << op;
    EXPECT_EQ(result->front().dtype, ir::DType::kFloat32) << op;
  }
}

TEST(Reduce, DefaultAxesWithKeepDimensionsGiveAllOnes) {
  auto result =
      Infer("reduceSum", {F32({2, 3, 4})}, A({{"keepDimensions", true}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(1, 1, 1));
}

TEST(Reduce, RemovesOnlyTheListedAxes) {
  EXPECT_THAT(ShapeOf(Infer("reduceMean", {F32({2, 3, 4, 5})},
                            A({{"axes", Ints{1, 3}}}))),
              ElementsAre(2, 4));
  // The order of the listed axes does not matter.
  EXPECT_THAT(ShapeOf(Infer("reduceMean", {F32({2, 3, 4, 5})},
                            A({{"axes", Ints{3, 1}}}))),
              ElementsAre(2, 4));
}

TEST(Reduce, KeepDimensionsKeepsReducedAxesAsOne) {
  auto result = Infer("reduceMax", {F32({2, 3, 4})},
                      A({{"axes", Ints{0, 2}}, {"keepDimensions", true}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(1, 3, 1));
}

TEST(Reduce, EmptyAxesReduceNothing) {
  EXPECT_THAT(ShapeOf(Infer("reduceSum", {F32({2, 3})}, A({{"axes", Ints{}}}))),
              ElementsAre(2, 3));
}

TEST(Reduce, ScalarInputStaysScalar) {
  auto result = Infer("reduceL1", {F32({})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, IsEmpty());
}

TEST(Reduce, RejectsAxisOutOfRange) {
  auto result = Infer("reduceSum", {F32({2, 3, 4})}, A({{"axes", Ints{0, 3}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "axes");
  EXPECT_THAT(result.status().message(), HasSubstr("out of range for rank 3"));
  // WebNN axes are unsigned: no negative indexing.
  EXPECT_FALSE(
      Infer("reduceSum", {F32({2, 3, 4})}, A({{"axes", Ints{-1}}})).ok());
}

TEST(Reduce, RejectsDuplicateAxes) {
  auto result =
      Infer("reduceProduct", {F32({2, 3})}, A({{"axes", Ints{1, 1}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "axes");
  EXPECT_THAT(result.status().message(), HasSubstr("twice"));
}

TEST(Reduce, FloatOnlyReductionsRejectIntegers) {
  for (const char* op :
       {"reduceMean", "reduceL2", "reduceLogSum", "reduceLogSumExp"}) {
    auto result = Infer(op, {T(ir::DType::kInt32, {4})});
    ASSERT_FALSE(result.ok()) << op;
    EXPECT_EQ(ir::BlamedOperand(result.status()), 0) << op;
    EXPECT_THAT(result.status().message(), HasSubstr("float32, float16")) << op;
    EXPECT_TRUE(Infer(op, {T(ir::DType::kFloat16, {4})}).ok()) << op;
  }
}

TEST(Reduce, SumLikeReductionsTakeWideIntegersButNotBytes) {
  for (const char* op :
       {"reduceSum", "reduceL1", "reduceProduct", "reduceSumSquare"}) {
    for (ir::DType type : {ir::DType::kInt32, ir::DType::kUint32,
                           ir::DType::kInt64, ir::DType::kUint64}) {
      auto result = Infer(op, {T(type, {4})});
      ASSERT_TRUE(result.ok()) << op << " " << ir::DTypeName(type);
      EXPECT_EQ(result->front().dtype, type);
    }
    EXPECT_FALSE(Infer(op, {T(ir::DType::kInt8, {4})}).ok()) << op;
    EXPECT_FALSE(Infer(op, {T(ir::DType::kUint8, {4})}).ok()) << op;
  }
}

TEST(Reduce, MinAndMaxTakeAnyNumericType) {
  for (const char* op : {"reduceMin", "reduceMax"}) {
    EXPECT_TRUE(Infer(op, {T(ir::DType::kInt8, {4})}).ok()) << op;
    EXPECT_TRUE(Infer(op, {T(ir::DType::kUint8, {4})}).ok()) << op;
    EXPECT_FALSE(Infer(op, {T(ir::DType::kInt4, {4})}).ok()) << op;
  }
}

TEST(Reduce, KeepsNamesOfRemainingDimensions) {
  auto result = Infer("reduceMean",
                      {F32({ir::kBatchDim, 8, 16}, {"batch", "rows", "cols"})},
                      A({{"axes", Ints{1}}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(ir::kBatchDim, 16));
  EXPECT_THAT(result->front().names, ElementsAre("batch", "cols"));
}

TEST(Reduce, AliasesFindTheNormReductions) {
  EXPECT_THAT(ShapeOf(Infer("reduce1", {F32({2, 3})}, A({{"axes", Ints{0}}}))),
              ElementsAre(3));
  EXPECT_THAT(ShapeOf(Infer("reduce2", {F32({2, 3})}, A({{"axes", Ints{1}}}))),
              ElementsAre(2));
}

TEST(ArgMinMax, RemovesTheAxisAndGivesInt32ByDefault) {
  for (const char* op : {"argMin", "argMax"}) {
    auto result = Infer(op, {F32({2, 3, 4})}, A({{"axis", 1}}));
    ASSERT_TRUE(result.ok()) << op << ": " << result.status();
    EXPECT_EQ(result->front().dtype, ir::DType::kInt32);
    EXPECT_THAT(result->front().shape, ElementsAre(2, 4));
  }
}

TEST(ArgMinMax, KeepDimensionsKeepsTheAxisAsOne) {
  EXPECT_THAT(ShapeOf(Infer("argMax", {F32({2, 3, 4})},
                            A({{"axis", 2}, {"keepDimensions", true}}))),
              ElementsAre(2, 3, 1));
}

TEST(ArgMinMax, AxisIsRequired) {
  auto result = Infer("argMin", {F32({2, 3})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "axis");
  EXPECT_THAT(result.status().message(), HasSubstr("needs the option 'axis'"));
}

TEST(ArgMinMax, RejectsAxisOutOfRange) {
  auto result = Infer("argMax", {F32({2, 3})}, A({{"axis", 2}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "axis");
  EXPECT_FALSE(Infer("argMax", {F32({})}, A({{"axis", 0}})).ok());
}

TEST(ArgMinMax, OutputDataTypeIsInt32OrInt64) {
  auto wide = Infer("argMin", {F32({5})},
                    A({{"axis", 0}, {"outputDataType", "int64"}}));
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ(wide->front().dtype, ir::DType::kInt64);
  EXPECT_THAT(wide->front().shape, IsEmpty());

  auto bad = Infer("argMin", {F32({5})},
                   A({{"axis", 0}, {"outputDataType", "uint32"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(ir::BlamedAttr(bad.status()), "outputDataType");
}

TEST(ArgMinMax, AcceptsIntegerInputs) {
  auto result =
      Infer("argMax", {T(ir::DType::kUint8, {3, 7})}, A({{"axis", 1}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kInt32);
  EXPECT_THAT(result->front().shape, ElementsAre(3));
}

TEST(CumulativeSum, KeepsShapeAndType) {
  auto result =
      Infer("cumulativeSum", {T(ir::DType::kInt64, {2, 3})},
            A({{"axis", 1}, {"exclusive", true}, {"reversed", true}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kInt64);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 3));
}

TEST(CumulativeSum, AxisIsRequiredAndInRange) {
  auto missing = Infer("cumulativeSum", {F32({4})});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(ir::BlamedAttr(missing.status()), "axis");
  auto out_of_range = Infer("cumulativeSum", {F32({4})}, A({{"axis", 1}}));
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(ir::BlamedAttr(out_of_range.status()), "axis");
}

TEST(CumulativeSum, RejectsScalarsAndByteTypes) {
  EXPECT_FALSE(Infer("cumulativeSum", {F32({})}, A({{"axis", 0}})).ok());
  EXPECT_FALSE(
      Infer("cumulativeSum", {T(ir::DType::kInt8, {4})}, A({{"axis", 0}}))
          .ok());
  EXPECT_TRUE(
      Infer("cumulativeSum", {T(ir::DType::kUint32, {4})}, A({{"axis", 0}}))
          .ok());
}

TEST(CumulativeSum, OptionsMustBeBooleans) {
  auto result =
      Infer("cumulativeSum", {F32({4})}, A({{"axis", 0}, {"exclusive", 1}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "exclusive");
}

}  // namespace
}  // namespace webnnm::ops
