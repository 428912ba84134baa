// CPU kernels of the layout and window operations (reshape, expand,
// transpose, tile, reverse, triangular, slice, pad, concat, split), on cases
// worked out by hand.
#include <cmath>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::F16;
using testing::F32;
using testing::Of;
using testing::RunOne;
using testing::RunOp;
using testing::Tensor;

using Ints = std::vector<int64_t>;

constexpr ir::DType kAllTypes[] = {ir::DType::kFloat32, ir::DType::kFloat16,
                                   ir::DType::kInt32,   ir::DType::kUint32,
                                   ir::DType::kInt64,   ir::DType::kUint64,
                                   ir::DType::kInt8,    ir::DType::kUint8,
                                   ir::DType::kInt4,    ir::DType::kUint4};

TEST(Reshape, KeepsTheBytes) {
  Tensor y = RunOne("reshape",
                    {Of(ir::DType::kInt64, {2, 3}, {-1, 2, -3, 4, 1e15, -6})},
                    A({{"newShape", Ints{3, 1, 2}}}));
  EXPECT_EQ(y.shape, (Ints{3, 1, 2}));
  EXPECT_THAT(y.values, ElementsAre(-1, 2, -3, 4, 1e15, -6));
}

TEST(Expand, BroadcastsOnesAndNewDimensions) {
  Tensor y =
      RunOne("expand", {F32({2, 1}, {1, 2})}, A({{"newShape", Ints{2, 2, 3}}}));
  EXPECT_EQ(y.shape, (Ints{2, 2, 3}));
  EXPECT_THAT(y.values, ElementsAre(1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2));
  // A scalar everywhere; a middle dimension of 1.
  EXPECT_THAT(RunOne("expand", {Of(ir::DType::kInt8, {}, {-7})},
                     A({{"newShape", Ints{2, 2}}}))
                  .values,
              ElementsAre(-7, -7, -7, -7));
  EXPECT_THAT(RunOne("expand", {F16({2, 1, 2}, {1, 2, 3, 4})},
                     A({{"newShape", Ints{2, 3, 2}}}))
                  .values,
              ElementsAre(1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4));
}

TEST(Transpose, DefaultReversesAndPermutationMoves) {
  EXPECT_THAT(RunOne("transpose", {F32({2, 3}, {1, 2, 3, 4, 5, 6})}).values,
              ElementsAre(1, 4, 2, 5, 3, 6));
  // y[c][a][b] = x[a][b][c] = 6a + 3b + c.
  std::vector<double> x(12);
  for (int i = 0; i < 12; ++i) x[i] = i;
  Tensor y = RunOne("transpose", {F32({2, 2, 3}, x)},
                    A({{"permutation", Ints{2, 0, 1}}}));
  EXPECT_EQ(y.shape, (Ints{3, 2, 2}));
  EXPECT_THAT(y.values, ElementsAre(0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11));
}

// The expected transpose of x[i] = i, computed index by index.
std::vector<double> Transposed(const Ints& shape, const Ints& perm) {
  const size_t rank = shape.size();
  Ints in_strides(rank, 1), out_shape(rank);
  for (size_t d = rank - 1; d > 0; --d) {
    in_strides[d - 1] = in_strides[d] * shape[d];
  }
  for (size_t d = 0; d < rank; ++d) out_shape[d] = shape[perm[d]];
  int64_t count = 1;
  for (int64_t n : shape) count *= n;
  std::vector<double> y;
  Ints index(rank, 0);  // over the result
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) at += index[d] * in_strides[perm[d]];
    y.push_back(static_cast<double>(at));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return y;
}

TEST(Transpose, LargeShapesRunInTiles) {
  struct Case {
    Ints shape, perm;
  };
  for (const Case& c :
       {Case{{40, 37}, {1, 0}}, Case{{2, 33, 9}, {0, 2, 1}},
        Case{{2, 3, 10, 11}, {0, 2, 3, 1}}, Case{{9, 2, 35}, {2, 1, 0}},
        Case{{3, 8, 4, 8}, {3, 1, 2, 0}}}) {
    SCOPED_TRACE(::testing::PrintToString(c.perm));
    int64_t count = 1;
    for (int64_t n : c.shape) count *= n;
    std::vector<double> x(count);
    for (int64_t i = 0; i < count; ++i) x[i] = static_cast<double>(i);
    for (ir::DType t : {ir::DType::kFloat32, ir::DType::kFloat16,
                        ir::DType::kInt64, ir::DType::kUint8}) {
      if (t == ir::DType::kUint8 && count > 256) continue;
      if (t == ir::DType::kFloat16 && count > 2048) continue;
      Tensor y = RunOne("transpose", {Of(t, c.shape, x)},
                        A({{"permutation", c.perm}}));
      EXPECT_THAT(y.values, ElementsAreArray(Transposed(c.shape, c.perm)));
    }
  }
}

TEST(Transpose, EveryDataType) {
  for (ir::DType t : kAllTypes) {
    SCOPED_TRACE(ir::DTypeName(t));
    Tensor y = RunOne("transpose", {Of(t, {3, 2}, {1, 2, 3, 4, 5, 6})});
    EXPECT_EQ(y.dtype, t);
    EXPECT_THAT(y.values, ElementsAre(1, 3, 5, 2, 4, 6));
  }
}

TEST(Movement, EveryDataTypeThroughTileReverseSliceAndConcat) {
  for (ir::DType t : kAllTypes) {
    SCOPED_TRACE(ir::DTypeName(t));
    EXPECT_THAT(RunOne("tile", {Of(t, {1, 2}, {5, 7})},
                       A({{"repetitions", Ints{2, 2}}}))
                    .values,
                ElementsAre(5, 7, 5, 7, 5, 7, 5, 7));
    EXPECT_THAT(RunOne("reverse", {Of(t, {3}, {1, 2, 3})}).values,
                ElementsAre(3, 2, 1));
    EXPECT_THAT(
        RunOne(
            "slice", {Of(t, {5}, {0, 1, 2, 3, 4})},
            A({{"starts", Ints{1}}, {"sizes", Ints{4}}, {"strides", Ints{3}}}))
            .values,
        ElementsAre(1, 4));
    EXPECT_THAT(RunOne("concat", {Of(t, {1}, {6}), Of(t, {2}, {4, 2})},
                       A({{"axis", int64_t{0}}}))
                    .values,
                ElementsAre(6, 4, 2));
    EXPECT_THAT(RunOne("pad", {Of(t, {2}, {3, 1})},
                       A({{"beginningPadding", Ints{1}},
                          {"endingPadding", Ints{2}},
                          {"mode", std::string("edge")}}))
                    .values,
                ElementsAre(3, 3, 1, 1, 1));
  }
}

TEST(Movement, WideValuesKeepEveryBit) {
  // Values a double cannot round-trip through float would expose a cast.
  EXPECT_THAT(RunOne("transpose", {Of(ir::DType::kInt64, {2, 1},
                                      {-4503599627370497.0, 1e18})})
                  .values,
              ElementsAre(-4503599627370497.0, 1e18));
  Tensor y = RunOne("reverse", {F32({2}, {-0.0, NAN})});
  ASSERT_EQ(y.values.size(), 2u);
  EXPECT_TRUE(std::isnan(y.values[0]));
  EXPECT_TRUE(std::signbit(y.values[1]));
}

TEST(Tile, RepeatsEachDimension) {
  Tensor y =
      RunOne("tile", {F32({2, 1}, {1, 2})}, A({{"repetitions", Ints{2, 3}}}));
  EXPECT_EQ(y.shape, (Ints{4, 3}));
  EXPECT_THAT(y.values, ElementsAre(1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2));
  EXPECT_THAT(RunOne("tile", {Of(ir::DType::kUint8, {2, 2}, {1, 2, 3, 4})},
                     A({{"repetitions", Ints{1, 2}}}))
                  .values,
              ElementsAre(1, 2, 1, 2, 3, 4, 3, 4));
}

TEST(Reverse, SomeOrAllOrNoAxes) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(RunOne("reverse", {x}, A({{"axes", Ints{1}}})).values,
              ElementsAre(3, 2, 1, 6, 5, 4));
  EXPECT_THAT(RunOne("reverse", {x}, A({{"axes", Ints{0}}})).values,
              ElementsAre(4, 5, 6, 1, 2, 3));
  EXPECT_THAT(RunOne("reverse", {x}).values, ElementsAre(6, 5, 4, 3, 2, 1));
  EXPECT_THAT(RunOne("reverse", {x}, A({{"axes", Ints{}}})).values,
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(Triangular, UpperLowerAndDiagonals) {
  const Tensor x = F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_THAT(RunOne("triangular", {x}).values,
              ElementsAre(1, 2, 3, 0, 5, 6, 0, 0, 9));
  EXPECT_THAT(RunOne("triangular", {x},
                     A({{"upper", false}, {"diagonal", int64_t{-1}}}))
                  .values,
              ElementsAre(0, 0, 0, 4, 0, 0, 7, 8, 0));
  EXPECT_THAT(RunOne("triangular", {x}, A({{"diagonal", int64_t{2}}})).values,
              ElementsAre(0, 0, 3, 0, 0, 0, 0, 0, 0));
  // Wide rectangles, batches, and diagonals far outside the matrix.
  EXPECT_THAT(RunOne("triangular",
                     {Of(ir::DType::kInt32, {2, 1, 3}, {1, 2, 3, 4, 5, 6})},
                     A({{"upper", false}, {"diagonal", int64_t{1}}}))
                  .values,
              ElementsAre(1, 2, 0, 4, 5, 0));
  EXPECT_THAT(RunOne("triangular", {x},
                     A({{"diagonal", int64_t{-9000000000000000000}}}))
                  .values,
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_THAT(
      RunOne("triangular", {x}, A({{"diagonal", int64_t{9000000000000000000}}}))
          .values,
      ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT(
      RunOne("triangular", {x},
             A({{"upper", false}, {"diagonal", int64_t{-9000000000000000000}}}))
          .values,
      ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0));
}

TEST(Slice, StartsSizesAndStrides) {
  std::vector<double> x(12);
  for (int i = 0; i < 12; ++i) x[i] = i;
  Tensor y = RunOne("slice", {F32({3, 4}, x)},
                    A({{"starts", Ints{1, 1}},
                       {"sizes", Ints{2, 3}},
                       {"strides", Ints{1, 2}}}));
  EXPECT_EQ(y.shape, (Ints{2, 2}));
  EXPECT_THAT(y.values, ElementsAre(5, 7, 9, 11));
  EXPECT_THAT(RunOne("slice", {F32({3, 4}, x)},
                     A({{"starts", Ints{0, 3}}, {"sizes", Ints{3, 1}}}))
                  .values,
              ElementsAre(3, 7, 11));
}

TEST(Slice, WindowPastTheEndIsRejected) {
  EXPECT_FALSE(RunOp("slice", {F32({4}, {1, 2, 3, 4})},
                     A({{"starts", Ints{3}}, {"sizes", Ints{2}}}))
                   .ok());
}

TEST(Pad, ConstantValueConvertsToTheType) {
  EXPECT_THAT(RunOne("pad", {F32({2, 1}, {1, 2})},
                     A({{"beginningPadding", Ints{1, 0}},
                        {"endingPadding", Ints{0, 2}},
                        {"value", 0.5}}))
                  .values,
              ElementsAre(0.5, 0.5, 0.5, 1, 0.5, 0.5, 2, 0.5, 0.5));
  auto padded = [](ir::DType t, double value) {
    return RunOne("pad", {Of(t, {1}, {3})},
                  A({{"beginningPadding", Ints{1}},
                     {"endingPadding", Ints{0}},
                     {"value", value}}))
        .values;
  };
  EXPECT_THAT(padded(ir::DType::kInt32, 9.75), ElementsAre(9, 3));
  EXPECT_THAT(padded(ir::DType::kInt32, -9.75), ElementsAre(-9, 3));
  EXPECT_THAT(padded(ir::DType::kUint8, 300), ElementsAre(255, 3));
  EXPECT_THAT(padded(ir::DType::kUint8, -5), ElementsAre(0, 3));
  EXPECT_THAT(padded(ir::DType::kInt8, -1000), ElementsAre(-128, 3));
  EXPECT_THAT(padded(ir::DType::kInt4, 100), ElementsAre(7, 3));
  EXPECT_THAT(padded(ir::DType::kUint4, 100), ElementsAre(15, 3));
  EXPECT_THAT(padded(ir::DType::kInt32, NAN), ElementsAre(0, 3));
  EXPECT_THAT(padded(ir::DType::kUint64, 1e30),
              ElementsAre(18446744073709551615.0, 3));
  EXPECT_THAT(padded(ir::DType::kInt64, -1e30),
              ElementsAre(-9223372036854775808.0, 3));
  // float16 rounds to nearest even: 0.1 -> 0.0999755859375.
  EXPECT_THAT(padded(ir::DType::kFloat16, 0.1),
              ElementsAre(0.0999755859375, 3));
}

TEST(Pad, EdgeRepeatsTheBorder) {
  EXPECT_THAT(RunOne("pad", {F32({3}, {1, 2, 3})},
                     A({{"beginningPadding", Ints{2}},
                        {"endingPadding", Ints{1}},
                        {"mode", std::string("edge")}}))
                  .values,
              ElementsAre(1, 1, 1, 2, 3, 3));
  Tensor y = RunOne("pad", {F32({2, 2}, {1, 2, 3, 4})},
                    A({{"beginningPadding", Ints{1, 0}},
                       {"endingPadding", Ints{0, 2}},
                       {"mode", std::string("edge")}}));
  EXPECT_EQ(y.shape, (Ints{3, 4}));
  EXPECT_THAT(y.values, ElementsAre(1, 2, 2, 2, 1, 2, 2, 2, 3, 4, 4, 4));
}

TEST(Pad, ReflectionMirrorsWithoutTheBorder) {
  EXPECT_THAT(RunOne("pad", {F32({3}, {1, 2, 3})},
                     A({{"beginningPadding", Ints{2}},
                        {"endingPadding", Ints{2}},
                        {"mode", std::string("reflection")}}))
                  .values,
              ElementsAre(3, 2, 1, 2, 3, 2, 1));
  Tensor y = RunOne("pad", {Of(ir::DType::kInt64, {2, 3}, {1, 2, 3, 4, 5, 6})},
                    A({{"beginningPadding", Ints{1, 1}},
                       {"endingPadding", Ints{1, 1}},
                       {"mode", std::string("reflection")}}));
  EXPECT_EQ(y.shape, (Ints{4, 5}));
  EXPECT_THAT(y.values, ElementsAre(5, 4, 5, 6, 5,  //
                                    2, 1, 2, 3, 2,  //
                                    5, 4, 5, 6, 5,  //
                                    2, 1, 2, 3, 2));
  // Padding as large as the dimension cannot reflect.
  EXPECT_FALSE(RunOp("pad", {F32({2}, {1, 2})},
                     A({{"beginningPadding", Ints{2}},
                        {"endingPadding", Ints{0}},
                        {"mode", std::string("reflection")}}))
                   .ok());
}

TEST(Pad, ReflectionInThreeDimensions) {
  // x[a][b][c] = 100a + 10b + c, shape {2, 2, 2}, padded by one before
  // along every axis: index -1 reflects to 1.
  std::vector<double> x;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c) x.push_back(100 * a + 10 * b + c);
  Tensor y = RunOne("pad", {F32({2, 2, 2}, x)},
                    A({{"beginningPadding", Ints{1, 1, 1}},
                       {"endingPadding", Ints{0, 0, 0}},
                       {"mode", std::string("reflection")}}));
  ASSERT_EQ(y.shape, (Ints{3, 3, 3}));
  std::vector<double> expected;
  auto src = [](int i) { return i == 0 ? 1 : i - 1; };
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 3; ++c)
        expected.push_back(100 * src(a) + 10 * src(b) + src(c));
  EXPECT_THAT(y.values, ElementsAreArray(expected));
}

TEST(Concat, ManyInputsAlongAnAxis) {
  Tensor y = RunOne(
      "concat",
      {F32({2, 1}, {1, 2}), F32({2, 2}, {3, 4, 5, 6}), F32({2, 1}, {7, 8})},
      A({{"axis", int64_t{1}}}));
  EXPECT_EQ(y.shape, (Ints{2, 4}));
  EXPECT_THAT(y.values, ElementsAre(1, 3, 4, 7, 2, 5, 6, 8));
  EXPECT_THAT(RunOne("concat", {F16({1, 2}, {1, 2}), F16({2, 2}, {3, 4, 5, 6})},
                     A({{"axis", int64_t{0}}}))
                  .values,
              ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(
      RunOne("concat", {F32({2}, {1, 2})}, A({{"axis", int64_t{0}}})).values,
      ElementsAre(1, 2));
}

TEST(Concat, InterleavesEqualSmallSlabs) {
  // Slabs of one, two and four 32-bit words, two inputs and three.
  EXPECT_THAT(RunOne("concat", {F32({3, 1}, {1, 2, 3}), F32({3, 1}, {4, 5, 6})},
                     A({{"axis", int64_t{1}}}))
                  .values,
              ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(RunOne("concat",
                     {Of(ir::DType::kInt64, {2, 1}, {1, -2}),
                      Of(ir::DType::kInt64, {2, 1}, {3e12, 4}),
                      Of(ir::DType::kInt64, {2, 1}, {5, 6})},
                     A({{"axis", int64_t{1}}}))
                  .values,
              ElementsAre(1, 3e12, 5, -2, 4, 6));
  Tensor y = RunOne("concat",
                    {F32({2, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
                     F32({2, 1, 4}, {9, 10, 11, 12, 13, 14, 15, 16})},
                    A({{"axis", int64_t{1}}}));
  EXPECT_EQ(y.shape, (Ints{2, 2, 4}));
  EXPECT_THAT(y.values, ElementsAre(1, 2, 3, 4, 9, 10, 11, 12, 5, 6, 7, 8, 13,
                                    14, 15, 16));
  // Three inputs of one float each along the last axis.
  EXPECT_THAT(
      RunOne("concat",
             {F32({2, 1}, {1, 2}), F32({2, 1}, {3, 4}), F32({2, 1}, {5, 6})},
             A({{"axis", int64_t{1}}}))
          .values,
      ElementsAre(1, 3, 5, 2, 4, 6));
}

TEST(Split, SizesOrCount) {
  auto pieces = RunOp("split", {F32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})},
                      A({{"splits", Ints{1, 3}}, {"axis", int64_t{1}}}));
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  ASSERT_EQ(pieces->size(), 2u);
  EXPECT_EQ((*pieces)[0].shape, (Ints{2, 1}));
  EXPECT_THAT((*pieces)[0].values, ElementsAre(1, 5));
  EXPECT_THAT((*pieces)[1].values, ElementsAre(2, 3, 4, 6, 7, 8));
  auto halves = RunOp("split", {Of(ir::DType::kUint32, {4, 1}, {1, 2, 3, 4})},
                      A({{"splits", int64_t{2}}}));
  ASSERT_TRUE(halves.ok()) << halves.status();
  ASSERT_EQ(halves->size(), 2u);
  EXPECT_THAT((*halves)[0].values, ElementsAre(1, 2));
  EXPECT_THAT((*halves)[1].values, ElementsAre(3, 4));
}

TEST(Movement, ConstantOperandsWork) {
  auto y = RunOp("transpose", {F32({2, 2}, {1, 2, 3, 4})}, {},
                 /*constants=*/true);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT((*y)[0].values, ElementsAre(1, 3, 2, 4));
}

}  // namespace
}  // namespace webnnm::backends::cpu
