// Shape and type rules of the data movement operations: concat, expand,
// reshape, transpose, slice, pad, split, tile, triangular, reverse, the
// gathers and scatters, and where.
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
constexpr int64_t S = ir::kSequenceDim;

ir::TensorType I32(std::vector<int64_t> shape) {
  return T(ir::DType::kInt32, std::move(shape));
}
ir::TensorType U8(std::vector<int64_t> shape) {
  return T(ir::DType::kUint8, std::move(shape));
}

TEST(Concat, SumsSizesAlongTheAxis) {
  EXPECT_THAT(ShapeOf(Infer("concat", {F32({2, 3}), F32({2, 5}), F32({2, 1})},
                            A({{"axis", 1}}))),
              ElementsAre(2, 9));
  EXPECT_THAT(
      ShapeOf(Infer("concat", {F32({B, 3}), F32({B, 4})}, A({{"axis", 1}}))),
      ElementsAre(B, 7));
}

TEST(Concat, OtherDimensionsMustMatch) {
  auto result = Infer("concat", {F32({2, 3}), F32({2, 3}), F32({4, 3})},
                      A({{"axis", 1}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
  EXPECT_THAT(result.status().message(), HasSubstr("differ only along axis 1"));
  auto rank = Infer("concat", {F32({2, 3}), F32({2, 3, 1})}, A({{"axis", 0}}));
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(ir::BlamedOperand(rank.status()), 1);
}

TEST(Concat, CannotJoinAlongTheBatchDimension) {
  auto result = Infer("concat", {F32({B, 3}), F32({B, 3})}, A({{"axis", 0}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "axis");
  EXPECT_THAT(result.status().message(), HasSubstr("batch or sequence"));
  // A single input is passed through unchanged.
  EXPECT_THAT(ShapeOf(Infer("concat", {F32({B, 3})}, A({{"axis", 0}}))),
              ElementsAre(B, 3));
}

TEST(Concat, AxisIsRequiredAndInRangeAndTypesAgree) {
  EXPECT_EQ(ir::BlamedAttr(Infer("concat", {F32({2})}).status()), "axis");
  EXPECT_FALSE(Infer("concat", {F32({2}), F32({2})}, A({{"axis", 1}})).ok());
  EXPECT_FALSE(Infer("concat", {F32({}), F32({})}, A({{"axis", 0}})).ok());
  auto types = Infer("concat", {F32({2}), T(ir::DType::kFloat16, {2})},
                     A({{"axis", 0}}));
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(ir::BlamedOperand(types.status()), 1);
}

TEST(Expand, BroadcastsUnidirectionally) {
  EXPECT_THAT(
      ShapeOf(Infer("expand", {F32({3, 1})}, A({{"newShape", Ints{2, 3, 4}}}))),
      ElementsAre(2, 3, 4));
  auto result = Infer("expand", {F32({3, 2})}, A({{"newShape", Ints{3, 4}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "newShape");
  // Expanding never lowers the rank.
  EXPECT_FALSE(Infer("expand", {F32({1, 3})}, A({{"newShape", Ints{3}}})).ok());
}

TEST(Expand, SymbolicDimensionsMatchOnlyThemselvesOrOne) {
  EXPECT_THAT(
      ShapeOf(Infer("expand", {F32({B, 1})}, A({{"newShape", Ints{B, 5}}}))),
      ElementsAre(B, 5));
  EXPECT_THAT(
      ShapeOf(Infer("expand", {F32({1, 5})}, A({{"newShape", Ints{B, 5}}}))),
      ElementsAre(B, 5));
  EXPECT_FALSE(
      Infer("expand", {F32({B, 5})}, A({{"newShape", Ints{4, 5}}})).ok());
}

// Only kBatchDim (-1) and kSequenceDim (-2) are symbols; another negative
// size is not a valid dimension (WebNN: every size is a positive integer).
TEST(Expand, RejectsNegativeSizesThatAreNotSymbols) {
  EXPECT_FALSE(Infer("expand", {F32({1})}, A({{"newShape", Ints{-5}}})).ok());
  EXPECT_FALSE(
      Infer("expand", {F32({1})}, A({{"newShape", Ints{-3, 2}}})).ok());
}

TEST(Reshape, KeepsTheElementCount) {
  EXPECT_THAT(ShapeOf(Infer("reshape", {F32({2, 3, 4})},
                            A({{"newShape", Ints{6, 4}}}))),
              ElementsAre(6, 4));
  EXPECT_THAT(ShapeOf(Infer("reshape", {F32({1})}, A({{"newShape", Ints{}}}))),
              ElementsAre());
  auto result = Infer("reshape", {F32({2, 3})}, A({{"newShape", Ints{7}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "newShape");
  EXPECT_THAT(result.status().message(), HasSubstr("6 elements"));
}

TEST(Reshape, RejectsNonPositiveSizes) {
  EXPECT_FALSE(
      Infer("reshape", {F32({2, 3})}, A({{"newShape", Ints{6, 0}}})).ok());
  EXPECT_FALSE(
      Infer("reshape", {F32({2, 3})}, A({{"newShape", Ints{-3, -2}}})).ok());
}

TEST(Reshape, KeepsBatchAndSequenceSymbols) {
  EXPECT_THAT(ShapeOf(Infer("reshape", {F32({B, S, 6})},
                            A({{"newShape", Ints{B, S, 2, 3}}}))),
              ElementsAre(B, S, 2, 3));
  auto dropped = Infer("reshape", {F32({B, 6})}, A({{"newShape", Ints{6}}}));
  ASSERT_FALSE(dropped.ok());
  EXPECT_THAT(dropped.status().message(), HasSubstr("keep the batch"));
  EXPECT_FALSE(
      Infer("reshape", {F32({2, 6})}, A({{"newShape", Ints{B, 12}}})).ok());
}

TEST(Transpose, DefaultReversesTheDimensions) {
  EXPECT_THAT(ShapeOf(Infer("transpose", {F32({2, 3, 4})})),
              ElementsAre(4, 3, 2));
}

TEST(Transpose, PermutesShapeNamesAndChannelAxis) {
  ir::TensorType x = F32({B, 3, 8, 9}, {"batch", "channels", "h", "w"});
  x.channel_axis = 1;
  auto result = Infer("transpose", {x}, A({{"permutation", Ints{0, 2, 3, 1}}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->front().shape, ElementsAre(B, 8, 9, 3));
  EXPECT_THAT(result->front().names,
              ElementsAre("batch", "h", "w", "channels"));
  EXPECT_EQ(result->front().channel_axis, 3);
}

TEST(Transpose, RejectsABadPermutation) {
  for (const Ints& perm : {Ints{0, 0, 1}, Ints{0, 1}, Ints{0, 1, 3}}) {
    auto result =
        Infer("transpose", {F32({2, 3, 4})}, A({{"permutation", perm}}));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(ir::BlamedAttr(result.status()), "permutation");
  }
}

TEST(Slice, OutputIsSizeOverStrideRoundedUp) {
  EXPECT_THAT(ShapeOf(Infer("slice", {F32({10, 8})},
                            A({{"starts", Ints{2, 0}},
                               {"sizes", Ints{5, 8}},
                               {"strides", Ints{2, 3}}}))),
              ElementsAre(3, 3));
  EXPECT_THAT(ShapeOf(Infer("slice", {F32({10})},
                            A({{"starts", Ints{9}}, {"sizes", Ints{1}}}))),
              ElementsAre(1));
}

TEST(Slice, RejectsWindowsPastTheEnd) {
  auto result =
      Infer("slice", {F32({10})}, A({{"starts", Ints{6}}, {"sizes", Ints{5}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "sizes");
  EXPECT_THAT(result.status().message(), HasSubstr("runs past the end"));
}

TEST(Slice, RejectsBadStartsSizesAndStrides) {
  auto slice = [](Ints starts, Ints sizes, Ints strides) {
    return Infer(
        "slice", {F32({4, 4})},
        A({{"starts", starts}, {"sizes", sizes}, {"strides", strides}}));
  };
  EXPECT_EQ(ir::BlamedAttr(slice({0}, {1, 1}, {1, 1}).status()), "starts");
  EXPECT_EQ(ir::BlamedAttr(slice({0, -1}, {1, 1}, {1, 1}).status()), "starts");
  EXPECT_EQ(ir::BlamedAttr(slice({0, 0}, {1, 0}, {1, 1}).status()), "sizes");
  EXPECT_EQ(ir::BlamedAttr(slice({0, 0}, {1}, {1, 1}).status()), "sizes");
  EXPECT_EQ(ir::BlamedAttr(slice({0, 0}, {1, 1}, {1, 0}).status()), "strides");
}

TEST(Slice, SymbolicDimensionsAreKeptWhole) {
  EXPECT_THAT(
      ShapeOf(Infer("slice", {F32({B, 8})},
                    A({{"starts", Ints{0, 2}}, {"sizes", Ints{B, 4}}}))),
      ElementsAre(B, 4));
  auto result = Infer("slice", {F32({B, 8})},
                      A({{"starts", Ints{1, 0}}, {"sizes", Ints{B, 8}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("whole batch"));
}

TEST(Pad, AddsBothSidesInEveryMode) {
  for (const char* mode : {"constant", "edge", "reflection"}) {
    EXPECT_THAT(ShapeOf(Infer("pad", {F32({3, 4})},
                              A({{"beginningPadding", Ints{1, 2}},
                                 {"endingPadding", Ints{2, 0}},
                                 {"mode", mode}}))),
                ElementsAre(6, 6))
        << mode;
  }
  EXPECT_EQ(
      ir::BlamedAttr(Infer("pad", {F32({3})}, A({{"mode", "wrap"}})).status()),
      "mode");
}

TEST(Pad, ReflectionPaddingMustBeSmallerThanTheDimension) {
  auto result = Infer("pad", {F32({3})},
                      A({{"beginningPadding", Ints{3}},
                         {"endingPadding", Ints{0}},
                         {"mode", "reflection"}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "beginningPadding");
  EXPECT_FALSE(Infer("pad", {F32({3})},
                     A({{"beginningPadding", Ints{0}},
                        {"endingPadding", Ints{3}},
                        {"mode", "reflection"}}))
                   .ok());
  // Edge padding repeats the border as often as asked.
  EXPECT_THAT(ShapeOf(Infer("pad", {F32({3})},
                            A({{"beginningPadding", Ints{5}},
                               {"endingPadding", Ints{5}},
                               {"mode", "edge"}}))),
              ElementsAre(13));
}

TEST(Pad, RejectsSizesBeyondTheDimensionLimit) {
  // 2^31 - 2 + 1 fits exactly; one more element does not.
  EXPECT_THAT(ShapeOf(Infer("pad", {U8({2147483646})},
                            A({{"endingPadding", Ints{1}}}))),
              ElementsAre(2147483647));
  auto result =
      Infer("pad", {U8({2147483646})},
            A({{"beginningPadding", Ints{1}}, {"endingPadding", Ints{1}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("more than the limit"));
}

TEST(Pad, CannotPadTheBatchDimension) {
  auto result = Infer(
      "pad", {F32({B, 3})},
      A({{"beginningPadding", Ints{1, 0}}, {"endingPadding", Ints{0, 0}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "beginningPadding");
}

TEST(Split, CountGivesEqualPieces) {
  auto result = Infer("split", {F32({6, 4})}, A({{"splits", 3}}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 3u);
  for (const auto& piece : *result) EXPECT_THAT(piece.shape, ElementsAre(2, 4));
}

TEST(Split, ListGivesTheListedSizes) {
  auto result = Infer("split", {F32({B, 6})},
                      A({{"splits", Ints{1, 2, 3}}, {"axis", 1}}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 3u);
  EXPECT_THAT((*result)[0].shape, ElementsAre(B, 1));
  EXPECT_THAT((*result)[2].shape, ElementsAre(B, 3));
}

TEST(Split, RejectsUnevenAndMismatchedSplits) {
  EXPECT_EQ(
      ir::BlamedAttr(Infer("split", {F32({6})}, A({{"splits", 4}})).status()),
      "splits");
  EXPECT_EQ(
      ir::BlamedAttr(
          Infer("split", {F32({6})}, A({{"splits", Ints{2, 2}}})).status()),
      "splits");
  EXPECT_FALSE(Infer("split", {F32({6})}, A({{"splits", Ints{6, 0}}})).ok());
  EXPECT_FALSE(Infer("split", {F32({6})}, A({{"splits", 0}})).ok());
  EXPECT_EQ(ir::BlamedAttr(
                Infer("split", {F32({B, 6})}, A({{"splits", 2}})).status()),
            "axis");
}

TEST(Tile, MultipliesEachDimension) {
  EXPECT_THAT(
      ShapeOf(Infer("tile", {F32({2, 3})}, A({{"repetitions", Ints{2, 1}}}))),
      ElementsAre(4, 3));
  EXPECT_FALSE(
      Infer("tile", {F32({2, 3})}, A({{"repetitions", Ints{2, 0}}})).ok());
  EXPECT_FALSE(
      Infer("tile", {F32({2, 3})}, A({{"repetitions", Ints{2}}})).ok());
  EXPECT_EQ(ir::BlamedAttr(
                Infer("tile", {F32({B, 3})}, A({{"repetitions", Ints{2, 1}}}))
                    .status()),
            "repetitions");
}

TEST(Triangular, NeedsRankTwoOrMore) {
  EXPECT_THAT(ShapeOf(Infer("triangular", {I32({4, 4})},
                            A({{"upper", false}, {"diagonal", -1}}))),
              ElementsAre(4, 4));
  EXPECT_THAT(ShapeOf(Infer("triangular", {F32({2, 3, 5})})),
              ElementsAre(2, 3, 5));
  auto result = Infer("triangular", {F32({4})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 0);
}

TEST(Reverse, KeepsShapeAndChecksAxes) {
  EXPECT_THAT(ShapeOf(Infer("reverse", {F32({2, 3})})), ElementsAre(2, 3));
  EXPECT_THAT(ShapeOf(Infer("reverse", {F32({2, 3})}, A({{"axes", Ints{1}}}))),
              ElementsAre(2, 3));
  EXPECT_FALSE(Infer("reverse", {F32({2, 3})}, A({{"axes", Ints{1, 1}}})).ok());
  EXPECT_FALSE(Infer("reverse", {F32({2, 3})}, A({{"axes", Ints{2}}})).ok());
}

TEST(Gather, ReplacesTheAxisByTheIndicesShape) {
  EXPECT_THAT(
      ShapeOf(Infer("gather", {F32({4, 5, 6}), I32({2, 3})}, A({{"axis", 1}}))),
      ElementsAre(4, 2, 3, 6));
  EXPECT_THAT(ShapeOf(Infer("gather", {F32({4, 5}), I32({})})), ElementsAre(5));
  EXPECT_FALSE(Infer("gather", {F32({4}), I32({2})}, A({{"axis", 1}})).ok());
}

TEST(Gather, IndicesMustBeAnIndexType) {
  EXPECT_TRUE(Infer("gather", {F32({4}), T(ir::DType::kInt64, {2})}).ok());
  EXPECT_TRUE(Infer("gather", {F32({4}), T(ir::DType::kUint32, {2})}).ok());
  auto result = Infer("gather", {F32({4}), F32({2})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
  EXPECT_FALSE(Infer("gather", {F32({4}), T(ir::DType::kInt8, {2})}).ok());
}

TEST(GatherElements, OutputHasTheIndicesShape) {
  auto result =
      Infer("gatherElements", {T(ir::DType::kInt8, {4, 3}), I32({2, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kInt8);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 3));
  EXPECT_THAT(ShapeOf(Infer("gatherElements", {F32({4, 3}), I32({4, 7})},
                            A({{"axis", 1}}))),
              ElementsAre(4, 7));
}

TEST(GatherElements, RejectsRankMismatchAndLargerIndices) {
  EXPECT_EQ(ir::BlamedOperand(
                Infer("gatherElements", {F32({4, 3}), I32({4})}).status()),
            1);
  EXPECT_EQ(ir::BlamedOperand(
                Infer("gatherElements", {F32({4, 3}), I32({2, 4})}).status()),
            1);
}

// WebNNM follows the specification's prose: off the axis, indices may be
// smaller than the input (WebNN asks for equal sizes; every WebNN case is
// accepted). Larger is an error.
TEST(GatherElements, AcceptsIndicesNoLargerOffTheAxis) {
  EXPECT_THAT(ShapeOf(Infer("gatherElements", {F32({4, 3}), I32({2, 2})})),
              ElementsAre(2, 2));
  EXPECT_FALSE(Infer("gatherElements", {F32({4, 3}), I32({2, 4})}).ok());
}

TEST(GatherND, OutputIsLeadingIndicesThenTrailingInput) {
  EXPECT_THAT(ShapeOf(Infer("gatherND", {F32({2, 3, 4}), I32({5, 2})})),
              ElementsAre(5, 4));
  EXPECT_THAT(ShapeOf(Infer("gatherND", {F32({2, 3, 4}), I32({5, 6, 3})})),
              ElementsAre(5, 6));
  EXPECT_EQ(ir::BlamedOperand(
                Infer("gatherND", {F32({2, 3, 4}), I32({5, 4})}).status()),
            1);
  EXPECT_FALSE(Infer("gatherND", {F32({2, 3}), I32({})}).ok());
  EXPECT_FALSE(Infer("gatherND", {F32({2, 3}), F32({1, 1})}).ok());
}

TEST(ScatterElements, UpdatesHaveTheIndicesShape) {
  EXPECT_THAT(ShapeOf(Infer("scatterElements",
                            {F32({4, 3}), I32({2, 3}), F32({2, 3})})),
              ElementsAre(4, 3));
  auto result =
      Infer("scatterElements", {F32({4, 3}), I32({2, 3}), F32({2, 2})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
  EXPECT_FALSE(Infer("scatterElements",
                     {F32({4, 3}), I32({2, 3}), T(ir::DType::kFloat16, {2, 3})})
                   .ok());
}

// As gatherElements: off the axis, indices may be smaller than the input.
TEST(ScatterElements, AcceptsIndicesNoLargerOffTheAxis) {
  EXPECT_TRUE(
      Infer("scatterElements", {F32({4, 3}), I32({2, 2}), F32({2, 2})}).ok());
  EXPECT_FALSE(
      Infer("scatterElements", {F32({4, 3}), I32({2, 4}), F32({2, 4})}).ok());
}

TEST(ScatterND, UpdatesAreLeadingIndicesThenTrailingInput) {
  EXPECT_THAT(
      ShapeOf(Infer("scatterND", {F32({4, 5, 6}), I32({3, 2}), F32({3, 6})})),
      ElementsAre(4, 5, 6));
  auto result =
      Infer("scatterND", {F32({4, 5, 6}), I32({3, 2}), F32({3, 5, 6})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 2);
  EXPECT_THAT(result.status().message(), HasSubstr("[3, 6]"));
  EXPECT_FALSE(Infer("scatterND", {F32({4, 5}), I32({3, 3}), F32({3})}).ok());
}

TEST(Where, BroadcastsAllThreeAndTakesTheValuesType) {
  auto result = Infer("where", {U8({2, 1, 4}), I32({3, 1}), I32({4})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kInt32);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 3, 4));
  EXPECT_FALSE(Infer("where", {U8({2}), F32({3}), F32({3})}).ok());
  EXPECT_FALSE(Infer("where", {U8({3}), F32({2}), F32({3})}).ok());
}

TEST(Where, ConditionIsUint8AndValuesShareAType) {
  auto condition = Infer("where", {F32({2}), F32({2}), F32({2})});
  ASSERT_FALSE(condition.ok());
  EXPECT_EQ(ir::BlamedOperand(condition.status()), 0);
  auto values =
      Infer("where", {U8({2}), F32({2}), T(ir::DType::kFloat16, {2})});
  ASSERT_FALSE(values.ok());
  EXPECT_EQ(ir::BlamedOperand(values.status()), 2);
}

}  // namespace
}  // namespace webnnm::ops
