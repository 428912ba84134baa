// Shape and type rules of conv2d, convTranspose2d and the 2-D pooling
// operations.
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
constexpr int64_t B = ir::kBatchDim;

TEST(Conv2d, ValidConvolutionShrinksBySpatialKernel) {
  auto result = Infer("conv2d", {F32({1, 3, 32, 32}), F32({16, 3, 3, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kFloat32);
  EXPECT_THAT(result->front().shape, ElementsAre(1, 16, 30, 30));
  EXPECT_EQ(result->front().channel_axis, 1);
}

TEST(Conv2d, EveryFilterLayoutGivesTheSameResult) {
  // Four output channels, two input channels, a 5x3 kernel.
  const std::pair<const char*, Ints> layouts[] = {{"oihw", {4, 2, 5, 3}},
                                                  {"hwio", {5, 3, 2, 4}},
                                                  {"ohwi", {4, 5, 3, 2}},
                                                  {"ihwo", {2, 5, 3, 4}}};
  for (const auto& [layout, filter] : layouts) {
    EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 2, 10, 12}), F32(filter)},
                              A({{"filterLayout", layout}}))),
                ElementsAre(1, 4, 6, 10))
        << layout;
    EXPECT_THAT(
        ShapeOf(Infer("conv2d", {F32({1, 10, 12, 2}), F32(filter)},
                      A({{"filterLayout", layout}, {"inputLayout", "nhwc"}}))),
        ElementsAre(1, 6, 10, 4))
        << layout;
  }
  EXPECT_EQ(
      ir::BlamedAttr(Infer("conv2d", {F32({1, 2, 5, 5}), F32({2, 4, 3, 3})},
                           A({{"filterLayout", "iohw"}}))
                         .status()),
      "filterLayout");
}

TEST(Conv2d, GroupsSplitTheChannels) {
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 4, 8, 8}), F32({6, 2, 3, 3})},
                            A({{"groups", 2}}))),
              ElementsAre(1, 6, 6, 6));
  auto per_group = Infer("conv2d", {F32({1, 4, 8, 8}), F32({6, 4, 3, 3})},
                         A({{"groups", 2}}));
  ASSERT_FALSE(per_group.ok());
  EXPECT_EQ(ir::BlamedOperand(per_group.status()), 1);
  auto outputs = Infer("conv2d", {F32({1, 4, 8, 8}), F32({5, 2, 3, 3})},
                       A({{"groups", 2}}));
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(ir::BlamedAttr(outputs.status()), "groups");
  EXPECT_FALSE(Infer("conv2d", {F32({1, 3, 8, 8}), F32({6, 1, 3, 3})},
                     A({{"groups", 2}}))
                   .ok());
  EXPECT_EQ(
      ir::BlamedAttr(Infer("conv2d", {F32({1, 4, 8, 8}), F32({6, 4, 3, 3})},
                           A({{"groups", 0}}))
                         .status()),
      "groups");
}

TEST(Conv2d, DepthwiseHasOneInputChannelPerGroup) {
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 8, 8, 8}), F32({8, 1, 3, 3})},
                            A({{"groups", 8}}))),
              ElementsAre(1, 8, 6, 6));
  // A channel multiplier of two.
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 8, 8, 8}), F32({16, 1, 3, 3})},
                            A({{"groups", 8}}))),
              ElementsAre(1, 16, 6, 6));
}

TEST(Conv2d, PaddingStridesAndDilations) {
  // floor((7 + 2 - 3) / 2) + 1 = 4
  EXPECT_THAT(ShapeOf(Infer(
                  "conv2d", {F32({1, 1, 7, 7}), F32({1, 1, 3, 3})},
                  A({{"padding", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}))),
              ElementsAre(1, 1, 4, 4));
  // Effective window (3 - 1) * 2 + 1 = 5: 7 - 5 + 1 = 3.
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 1, 7, 7}), F32({1, 1, 3, 3})},
                            A({{"dilations", Ints{2, 2}}}))),
              ElementsAre(1, 1, 3, 3));
  // Padding is [top, bottom, left, right].
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 1, 7, 7}), F32({1, 1, 3, 3})},
                            A({{"padding", Ints{0, 1, 2, 0}}}))),
              ElementsAre(1, 1, 6, 7));
}

TEST(Conv2d, RejectsBadWindowOptions) {
  auto conv = [](const char* attr, Ints value) {
    return Infer("conv2d", {F32({1, 1, 7, 7}), F32({1, 1, 3, 3})},
                 A({{attr, value}}));
  };
  EXPECT_EQ(ir::BlamedAttr(conv("strides", {0, 1}).status()), "strides");
  EXPECT_EQ(ir::BlamedAttr(conv("dilations", {1, 0}).status()), "dilations");
  EXPECT_EQ(ir::BlamedAttr(conv("padding", {1, 1, 1}).status()), "padding");
  EXPECT_EQ(ir::BlamedAttr(conv("padding", {0, 0, -1, 0}).status()), "padding");
  EXPECT_EQ(ir::BlamedAttr(conv("strides", {1, 1, 1}).status()), "strides");
}

TEST(Conv2d, BiasHasOneValuePerOutputChannel) {
  EXPECT_TRUE(
      Infer("conv2d", {F32({1, 3, 8, 8}), F32({16, 3, 3, 3}), F32({16})}).ok());
  for (const Ints& bias : {Ints{3}, Ints{16, 1}, Ints{}}) {
    auto result =
        Infer("conv2d", {F32({1, 3, 8, 8}), F32({16, 3, 3, 3}), F32(bias)});
    ASSERT_FALSE(result.ok()) << ir::ShapeToString(bias);
    EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
  }
}

TEST(Conv2d, RejectsAnEffectiveWindowLargerThanThePaddedInput) {
  auto result = Infer("conv2d", {F32({1, 1, 4, 4}), F32({1, 1, 3, 3})},
                      A({{"dilations", Ints{2, 2}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("effective size 5"));
  EXPECT_THAT(result.status().message(), HasSubstr("padded input of size 4"));
  // One row of padding makes the window fit exactly.
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({1, 1, 4, 4}), F32({1, 1, 3, 3})},
                            A({{"dilations", Ints{2, 2}},
                               {"padding", Ints{1, 0, 0, 1}}}))),
              ElementsAre(1, 1, 1, 1));
  EXPECT_FALSE(Infer("conv2d", {F32({1, 1, 2, 2}), F32({1, 1, 3, 3})}).ok());
}

TEST(Conv2d, RejectsHugeDilations) {
  // Fits in 64 bits but not in the input.
  auto large = Infer("conv2d", {F32({1, 1, 8, 8}), F32({1, 1, 3, 3})},
                     A({{"dilations", Ints{2147483647, 1}}}));
  ASSERT_FALSE(large.ok());
  EXPECT_THAT(large.status().message(), HasSubstr("does not fit"));
  // Beyond the dimension limit.
  auto beyond = Infer("conv2d", {F32({1, 1, 8, 8}), F32({1, 1, 3, 3})},
                      A({{"dilations", Ints{int64_t{1} << 40, 1}}}));
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(ir::BlamedAttr(beyond.status()), "dilations");
  // (k - 1) * d overflows 64 bits.
  auto overflow =
      Infer("conv2d", {F32({1, 1, 8, 8}), F32({1, 1, int64_t{1} << 40, 1})},
            A({{"dilations", Ints{2147483647, 1}}}));
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(overflow.status().message(), HasSubstr("overflows"));
}

TEST(Conv2d, SymbolicBatchIsFineButChannelsAndSpaceAreNot) {
  EXPECT_THAT(ShapeOf(Infer("conv2d", {F32({B, 3, 8, 8}), F32({4, 3, 3, 3})})),
              ElementsAre(B, 4, 6, 6));
  auto channels = Infer("conv2d", {F32({1, B, 8, 8}), F32({4, 3, 3, 3})});
  ASSERT_FALSE(channels.ok());
  EXPECT_EQ(ir::BlamedOperand(channels.status()), 0);
  EXPECT_THAT(channels.status().message(), HasSubstr("fixed size"));
  EXPECT_FALSE(
      Infer("conv2d", {F32({1, 3, ir::kSequenceDim, 8}), F32({4, 3, 3, 3})})
          .ok());
}

TEST(Conv2d, NeedsFourDimensionalFloatOperands) {
  EXPECT_EQ(ir::BlamedOperand(
                Infer("conv2d", {F32({3, 8, 8}), F32({4, 3, 3, 3})}).status()),
            0);
  EXPECT_EQ(ir::BlamedOperand(
                Infer("conv2d", {F32({1, 3, 8, 8}), F32({4, 3, 3})}).status()),
            1);
  EXPECT_FALSE(Infer("conv2d", {T(ir::DType::kInt32, {1, 3, 8, 8}),
                                T(ir::DType::kInt32, {4, 3, 3, 3})})
                   .ok());
  EXPECT_FALSE(
      Infer("conv2d", {F32({1, 3, 8, 8}), T(ir::DType::kFloat16, {4, 3, 3, 3})})
          .ok());
}

TEST(ConvTranspose2d, OutputSizeFormula) {
  // (3 - 1) * 2 + 3 = 7
  auto result = Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
                      A({{"strides", Ints{2, 2}}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(1, 4, 7, 7));
  // Padding subtracts, outputPadding adds, dilation widens the kernel.
  EXPECT_THAT(
      ShapeOf(Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
                    A({{"strides", Ints{2, 2}},
                       {"padding", Ints{1, 1, 0, 1}},
                       {"outputPadding", Ints{1, 0}}}))),
      ElementsAre(1, 4, 6, 6));
  EXPECT_THAT(
      ShapeOf(Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
                    A({{"dilations", Ints{2, 1}}}))),
      ElementsAre(1, 4, 7, 5));
}

TEST(ConvTranspose2d, FilterLayoutsAndNhwc) {
  for (const auto& [layout, filter] :
       {std::pair<const char*, Ints>{"iohw", {2, 4, 3, 3}},
        {"hwoi", {3, 3, 4, 2}},
        {"ohwi", {4, 3, 3, 2}}}) {
    EXPECT_THAT(
        ShapeOf(Infer("convTranspose2d", {F32({1, 3, 3, 2}), F32(filter)},
                      A({{"filterLayout", layout}, {"inputLayout", "nhwc"}}))),
        ElementsAre(1, 5, 5, 4))
        << layout;
  }
}

TEST(ConvTranspose2d, OutputPaddingMustBeSmallerThanTheStride) {
  auto result =
      Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
            A({{"strides", Ints{2, 2}}, {"outputPadding", Ints{2, 0}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "outputPadding");
}

TEST(ConvTranspose2d, OutputSizesMustLieWithinOneStride) {
  auto conv = [](Ints sizes) {
    return Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
                 A({{"strides", Ints{2, 2}}, {"outputSizes", sizes}}));
  };
  EXPECT_THAT(ShapeOf(conv({8, 7})), ElementsAre(1, 4, 8, 7));
  EXPECT_EQ(ir::BlamedAttr(conv({9, 7}).status()), "outputSizes");
  EXPECT_EQ(ir::BlamedAttr(conv({7, 6}).status()), "outputSizes");
  EXPECT_EQ(ir::BlamedAttr(conv({7}).status()), "outputSizes");
}

// WebNN checks outputPadding < strides only when outputSizes is absent;
// with outputSizes the outputPadding is ignored.
TEST(ConvTranspose2d, OutputSizesMakeOutputPaddingIrrelevant) {
  EXPECT_THAT(
      ShapeOf(Infer(
          "convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
          A({{"outputSizes", Ints{5, 5}}, {"outputPadding", Ints{1, 1}}}))),
      ElementsAre(1, 4, 5, 5));
}

TEST(ConvTranspose2d, GroupsMultiplyTheFilterOutputChannels) {
  EXPECT_THAT(
      ShapeOf(Infer("convTranspose2d", {F32({1, 4, 3, 3}), F32({4, 3, 3, 3})},
                    A({{"groups", 2}}))),
      ElementsAre(1, 6, 5, 5));
  EXPECT_TRUE(Infer("convTranspose2d",
                    {F32({1, 4, 3, 3}), F32({4, 3, 3, 3}), F32({6})},
                    A({{"groups", 2}}))
                  .ok());
  EXPECT_EQ(
      ir::BlamedOperand(Infer("convTranspose2d",
                              {F32({1, 4, 3, 3}), F32({4, 3, 3, 3}), F32({3})},
                              A({{"groups", 2}}))
                            .status()),
      2);
}

TEST(ConvTranspose2d, RejectsChannelMismatchAndEmptyOutputs) {
  auto channels =
      Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({3, 4, 3, 3})});
  ASSERT_FALSE(channels.ok());
  EXPECT_EQ(ir::BlamedOperand(channels.status()), 1);
  // (1 - 1) * 1 + 1 - 2 < 1
  auto empty = Infer("convTranspose2d", {F32({1, 1, 1, 1}), F32({1, 1, 1, 1})},
                     A({{"padding", Ints{1, 1, 0, 0}}}));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(ir::BlamedAttr(empty.status()), "padding");
  EXPECT_FALSE(Infer("convTranspose2d", {F32({1, 2, 3, 3}), F32({2, 4, 3, 3})},
                     A({{"filterLayout", "oihw"}}))
                   .ok());
}

TEST(Pool2d, DefaultWindowIsTheWholeSpatialSize) {
  for (const char* op : {"averagePool2d", "l2Pool2d", "maxPool2d"}) {
    EXPECT_THAT(ShapeOf(Infer(op, {F32({2, 3, 5, 7})})),
                ElementsAre(2, 3, 1, 1))
        << op;
    EXPECT_THAT(
        ShapeOf(Infer(op, {F32({B, 5, 7, 3})}, A({{"layout", "nhwc"}}))),
        ElementsAre(B, 1, 1, 3))
        << op;
  }
}

TEST(Pool2d, FloorOrCeilRounding) {
  auto pool = [](ir::Attrs attrs) {
    attrs.Set("windowDimensions", Ints{2, 2});
    attrs.Set("strides", Ints{2, 2});
    return ShapeOf(Infer("averagePool2d", {F32({1, 3, 5, 5})}, attrs));
  };
  // (5 - 2) / 2 + 1 = 2.5
  EXPECT_THAT(pool({}), ElementsAre(1, 3, 2, 2));
  EXPECT_THAT(pool(A({{"outputShapeRounding", "floor"}})),
              ElementsAre(1, 3, 2, 2));
  EXPECT_THAT(pool(A({{"outputShapeRounding", "ceil"}})),
              ElementsAre(1, 3, 3, 3));
  EXPECT_THAT(pool(A({{"roundingType", "ceil"}})), ElementsAre(1, 3, 3, 3));
  auto bad = Infer("maxPool2d", {F32({1, 3, 5, 5})},
                   A({{"outputShapeRounding", "round"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(ir::BlamedAttr(bad.status()), "outputShapeRounding");
}

TEST(Pool2d, OutputSizesMustBeTheFloorOrCeilSize) {
  auto pool = [](Ints sizes) {
    return Infer("maxPool2d", {F32({1, 3, 5, 5})},
                 A({{"windowDimensions", Ints{2, 2}},
                    {"strides", Ints{2, 2}},
                    {"outputSizes", sizes}}));
  };
  EXPECT_THAT(ShapeOf(pool({2, 2})), ElementsAre(1, 3, 2, 2));
  EXPECT_THAT(ShapeOf(pool({3, 3})), ElementsAre(1, 3, 3, 3));
  EXPECT_EQ(ir::BlamedAttr(pool({4, 4}).status()), "outputSizes");
  EXPECT_EQ(ir::BlamedAttr(pool({1, 2}).status()), "outputSizes");
  EXPECT_EQ(ir::BlamedAttr(pool({2}).status()), "outputSizes");
}

// WebNN takes outputSizes as both floor sizes or both ceil sizes, never a
// floor height with a ceil width.
TEST(Pool2d, OutputSizesCannotMixFloorAndCeil) {
  EXPECT_FALSE(Infer("maxPool2d", {F32({1, 3, 5, 5})},
                     A({{"windowDimensions", Ints{2, 2}},
                        {"strides", Ints{2, 2}},
                        {"outputSizes", Ints{2, 3}}}))
                   .ok());
}

TEST(Pool2d, NhwcPoolsTheMiddleDimensions) {
  EXPECT_THAT(ShapeOf(Infer("l2Pool2d", {F32({1, 6, 4, 3})},
                            A({{"layout", "nhwc"},
                               {"windowDimensions", Ints{3, 2}},
                               {"strides", Ints{3, 2}}}))),
              ElementsAre(1, 2, 2, 3));
}

TEST(Pool2d, WindowMustFitThePaddedInput) {
  auto result = Infer("averagePool2d", {F32({1, 1, 4, 4})},
                      A({{"windowDimensions", Ints{5, 5}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("does not fit"));
  EXPECT_THAT(ShapeOf(Infer("averagePool2d", {F32({1, 1, 4, 4})},
                            A({{"windowDimensions", Ints{5, 5}},
                               {"padding", Ints{1, 0, 0, 1}}}))),
              ElementsAre(1, 1, 1, 1));
  // Dilation 2 widens a window of 2 to 3: 5 - 3 + 1 = 3.
  EXPECT_THAT(ShapeOf(Infer("maxPool2d", {F32({1, 1, 5, 5})},
                            A({{"windowDimensions", Ints{2, 2}},
                               {"dilations", Ints{2, 2}}}))),
              ElementsAre(1, 1, 3, 3));
  EXPECT_EQ(ir::BlamedAttr(Infer("maxPool2d", {F32({1, 1, 5, 5})},
                                 A({{"windowDimensions", Ints{0, 2}}}))
                               .status()),
            "windowDimensions");
}

TEST(Pool2d, TypesAndRanks) {
  EXPECT_TRUE(Infer("maxPool2d", {T(ir::DType::kInt8, {1, 1, 4, 4})}).ok());
  EXPECT_TRUE(Infer("maxPool2d", {T(ir::DType::kUint8, {1, 1, 4, 4})}).ok());
  EXPECT_FALSE(Infer("maxPool2d", {T(ir::DType::kInt32, {1, 1, 4, 4})}).ok());
  EXPECT_FALSE(
      Infer("averagePool2d", {T(ir::DType::kInt8, {1, 1, 4, 4})}).ok());
  EXPECT_TRUE(Infer("l2Pool2d", {T(ir::DType::kFloat16, {1, 1, 4, 4})}).ok());
  EXPECT_EQ(ir::BlamedOperand(Infer("maxPool2d", {F32({1, 4, 4})}).status()),
            0);
  EXPECT_FALSE(Infer("maxPool2d", {F32({1, 1, ir::kSequenceDim, 4})}).ok());
}

}  // namespace
}  // namespace webnnm::ops
