// Shape and type rules of softmax, prelu, resample2d and the clamp edge
// cases that elementwise_test.cc leaves out.
#include <cmath>
#include <limits>

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

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;
constexpr int64_t B = ir::kBatchDim;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Softmax, KeepsShapeAlongAnyAxisInRange) {
  EXPECT_THAT(ShapeOf(Infer("softmax", {F32({2, 3})})), ElementsAre(2, 3));
  EXPECT_THAT(ShapeOf(Infer("softmax", {F32({2, 3})}, A({{"axis", 0}}))),
              ElementsAre(2, 3));
  auto result = Infer("softmax", {F32({2, 3})}, A({{"axis", 2}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "axis");
  EXPECT_THAT(result.status().message(), HasSubstr("out of range for rank 2"));
  EXPECT_FALSE(Infer("softmax", {F32({2, 3})}, A({{"axis", -1}})).ok());
}

TEST(Softmax, NeedsAFloatTensorOfRankOneOrMore) {
  EXPECT_EQ(ir::BlamedOperand(Infer("softmax", {F32({})}).status()), 0);
  EXPECT_FALSE(Infer("softmax", {T(ir::DType::kInt32, {3})}).ok());
  EXPECT_TRUE(Infer("softmax", {T(ir::DType::kFloat16, {3})}).ok());
}

TEST(Prelu, SlopeBroadcastsToTheInput) {
  for (const Ints& slope :
       {Ints{4}, Ints{3, 1}, Ints{1}, Ints{}, Ints{2, 3, 4}, Ints{1, 3, 4}}) {
    EXPECT_THAT(ShapeOf(Infer("prelu", {F32({2, 3, 4}), F32(slope)})),
                ElementsAre(2, 3, 4))
        << ir::ShapeToString(slope);
  }
  auto result = Infer("prelu", {F32({2, 3, 4}), F32({3})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
  EXPECT_THAT(result.status().message(), HasSubstr("do not broadcast"));
}

// WebNN broadcasts prelu's input and slope bidirectionally (since 2024):
// the result can be larger than the input.
TEST(Prelu, BroadcastsBidirectionally) {
  EXPECT_THAT(ShapeOf(Infer("prelu", {F32({3}), F32({2, 3})})),
              ElementsAre(2, 3));
  EXPECT_THAT(ShapeOf(Infer("prelu", {F32({2, 1}), F32({4})})),
              ElementsAre(2, 4));
}

TEST(Prelu, TakesSignedTypes) {
  for (ir::DType type :
       {ir::DType::kInt8, ir::DType::kInt32, ir::DType::kInt64}) {
    EXPECT_TRUE(Infer("prelu", {T(type, {2}), T(type, {2})}).ok())
        << ir::DTypeName(type);
  }
  EXPECT_FALSE(
      Infer("prelu", {T(ir::DType::kUint8, {2}), T(ir::DType::kUint8, {2})})
          .ok());
  EXPECT_FALSE(Infer("prelu", {F32({2}), T(ir::DType::kFloat16, {2})}).ok());
}

TEST(Resample2d, ScalesResizeByFloor) {
  EXPECT_THAT(ShapeOf(Infer("resample2d", {F32({1, 3, 4, 6})},
                            A({{"scales", Floats{2.0, 0.5}}}))),
              ElementsAre(1, 3, 8, 3));
  EXPECT_THAT(
      ShapeOf(Infer("resample2d", {F32({1, 3, 5, 5})},
                    A({{"scales", Floats{1.5, 1.9}}, {"mode", "linear"}}))),
      ElementsAre(1, 3, 7, 9));
  EXPECT_THAT(ShapeOf(Infer("resample2d", {F32({1, 3, 4, 6})})),
              ElementsAre(1, 3, 4, 6));
}

TEST(Resample2d, SizesOverrideScales) {
  EXPECT_THAT(
      ShapeOf(Infer("resample2d", {F32({1, 3, 4, 6})},
                    A({{"scales", Floats{2.0, 2.0}}, {"sizes", Ints{5, 7}}}))),
      ElementsAre(1, 3, 5, 7));
  EXPECT_EQ(ir::BlamedAttr(Infer("resample2d", {F32({1, 3, 4, 6})},
                                 A({{"sizes", Ints{5, 0}}}))
                               .status()),
            "sizes");
  EXPECT_EQ(ir::BlamedAttr(Infer("resample2d", {F32({1, 3, 4, 6})},
                                 A({{"sizes", Ints{5}}}))
                               .status()),
            "sizes");
}

TEST(Resample2d, ScalesMustGivePositiveSizes) {
  for (const Floats& scales :
       {Floats{0.0, 1.0}, Floats{-2.0, 1.0}, Floats{1.0, 0.1}, Floats{1.0},
        Floats{kInf, 1.0}, Floats{std::nan(""), 1.0}}) {
    auto result =
        Infer("resample2d", {F32({1, 3, 4, 6})}, A({{"scales", scales}}));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(ir::BlamedAttr(result.status()), "scales");
  }
}

TEST(Resample2d, AxesAreTwoDifferentAxes) {
  EXPECT_THAT(ShapeOf(Infer("resample2d", {F32({1, 4, 6, 3})},
                            A({{"axes", Ints{1, 2}}, {"sizes", Ints{8, 9}}}))),
              ElementsAre(1, 8, 9, 3));
  EXPECT_THAT(
      ShapeOf(Infer("resample2d", {F32({4, 6, 1, 3})},
                    A({{"axes", Ints{0, 1}}, {"scales", Floats{0.5, 0.5}}}))),
      ElementsAre(2, 3, 1, 3));
  for (const Ints& axes : {Ints{2, 2}, Ints{3, 4}, Ints{2}, Ints{1, 2, 3}}) {
    auto result = Infer("resample2d", {F32({1, 3, 4, 6})}, A({{"axes", axes}}));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(ir::BlamedAttr(result.status()), "axes");
  }
}

// WebNN allows any two distinct axes in range (webnn#752, 2024).
TEST(Resample2d, AcceptsAnyTwoDistinctAxes) {
  EXPECT_THAT(ShapeOf(Infer("resample2d", {F32({1, 3, 4, 6})},
                            A({{"axes", Ints{1, 3}}, {"sizes", Ints{5, 7}}}))),
              ElementsAre(1, 5, 4, 7));
  EXPECT_THAT(ShapeOf(Infer("resample2d", {F32({1, 3, 4, 6})},
                            A({{"axes", Ints{3, 2}}, {"sizes", Ints{5, 7}}}))),
              ElementsAre(1, 3, 7, 5));
}

// WebNN takes uint8 and int8 inputs too (webnn#891, 2025).
TEST(Resample2d, AcceptsEightBitIntegers) {
  EXPECT_TRUE(Infer("resample2d", {T(ir::DType::kUint8, {1, 3, 4, 4})}).ok());
  EXPECT_TRUE(Infer("resample2d", {T(ir::DType::kInt8, {1, 3, 4, 4})}).ok());
}

TEST(Resample2d, RankTypeModeAndSymbolicDimensions) {
  EXPECT_EQ(ir::BlamedOperand(Infer("resample2d", {F32({3, 4, 6})}).status()),
            0);
  EXPECT_FALSE(Infer("resample2d", {T(ir::DType::kInt32, {1, 3, 4, 4})}).ok());
  EXPECT_EQ(ir::BlamedAttr(
                Infer("resample2d", {F32({1, 3, 4, 6})}, A({{"mode", "cubic"}}))
                    .status()),
            "mode");
  EXPECT_THAT(ShapeOf(Infer("resample2d", {F32({B, 3, 4, 6})},
                            A({{"scales", Floats{2.0, 2.0}}}))),
              ElementsAre(B, 3, 8, 12));
  EXPECT_FALSE(Infer("resample2d", {F32({B, 3, 4, 6})},
                     A({{"axes", Ints{0, 1}}, {"sizes", Ints{2, 2}}}))
                   .ok());
}

TEST(Clamp, EqualBoundsAndOneSidedBoundsAreFine) {
  EXPECT_TRUE(
      Infer("clamp", {F32({2})}, A({{"minValue", 1.0}, {"maxValue", 1.0}}))
          .ok());
  EXPECT_TRUE(Infer("clamp", {F32({2})}, A({{"minValue", 5.0}})).ok());
  EXPECT_TRUE(Infer("clamp", {F32({2})}, A({{"maxValue", -5.0}})).ok());
  EXPECT_TRUE(
      Infer("clamp", {F32({2})}, A({{"minValue", -kInf}, {"maxValue", kInf}}))
          .ok());
  EXPECT_TRUE(
      Infer("clamp", {F32({2})}, A({{"minValue", kInf}, {"maxValue", kInf}}))
          .ok());
}

TEST(Clamp, ReversedInfinitiesAreRejected) {
  auto result =
      Infer("clamp", {F32({2})}, A({{"minValue", kInf}, {"maxValue", -kInf}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "minValue");
}

TEST(Clamp, IntegerInputsAndIntegerBounds) {
  auto result = Infer("clamp", {T(ir::DType::kUint8, {2, 2})},
                      A({{"minValue", 0}, {"maxValue", 200}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kUint8);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 2));
  EXPECT_FALSE(Infer("clamp", {T(ir::DType::kInt4, {2})}).ok());
  EXPECT_EQ(ir::BlamedAttr(
                Infer("clamp", {F32({2})}, A({{"maxValue", "6"}})).status()),
            "maxValue");
}

// WebNN casts both bounds to the input's type before comparing them: for an
// int8 input 2.4 and 2.2 both become 2, and for uint8 -1 and -2 both become
// 0, so neither clamp is an error.
TEST(Clamp, ComparesBoundsAfterCastingToTheInputType) {
  EXPECT_TRUE(Infer("clamp", {T(ir::DType::kInt8, {2})},
                    A({{"minValue", 2.4}, {"maxValue", 2.2}}))
                  .ok());
  EXPECT_TRUE(Infer("clamp", {T(ir::DType::kUint8, {2})},
                    A({{"minValue", -1.0}, {"maxValue", -2.0}}))
                  .ok());
}

}  // namespace
}  // namespace webnnm::ops
