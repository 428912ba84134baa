// CPU kernels of the 2-D pooling operations and resample2d, on cases worked
// out by hand.
#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::F16;
using testing::F32;
using ::testing::IsNan;
using testing::Of;
using testing::RunOne;

using Ints = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

// 1 2 3
// 4 5 6
// 7 8 9
testing::Tensor Grid3x3() {
  return F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST(AveragePool, PaddingIsNotCounted) {
  // Window 2x2 with one row of padding on top and one column on the left:
  // the corner windows hold one real element, the edges two.
  testing::Tensor y = RunOne(
      "averagePool2d", {Grid3x3()},
      A({{"windowDimensions", Ints{2, 2}}, {"padding", Ints{1, 0, 1, 0}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 3, 3}));
  EXPECT_THAT(y.values, ElementsAre(1, 1.5, 2.5, 2.5, 3, 4, 5.5, 6, 7));
}

TEST(AveragePool, OutputSizesRoundUpWithPartialWindows) {
  // 3x3, window 2, stride 2: floor gives 1x1, ceil (here via outputSizes)
  // 2x2 whose last row and column of windows hang over the edge.
  testing::Tensor y = RunOne("averagePool2d", {Grid3x3()},
                             A({{"windowDimensions", Ints{2, 2}},
                                {"strides", Ints{2, 2}},
                                {"outputSizes", Ints{2, 2}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 2, 2}));
  EXPECT_THAT(y.values, ElementsAre(3, 4.5, 7.5, 9));
  testing::Tensor floor =
      RunOne("averagePool2d", {Grid3x3()},
             A({{"windowDimensions", Ints{2, 2}}, {"strides", Ints{2, 2}}}));
  EXPECT_THAT(floor.values, ElementsAre(3));
}

TEST(AveragePool, NhwcGlobalAveragePerChannel) {
  // Pixels (channel 0, channel 1): (1, 10) (2, 20) / (3, 30) (4, 40).
  testing::Tensor y =
      RunOne("averagePool2d", {F32({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40})},
             A({{"layout", std::string("nhwc")}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 1, 2}));
  EXPECT_THAT(y.values, ElementsAre(2.5, 25));
}

TEST(AveragePool, Float16RoundsTheAverage) {
  // 5/3 = 1.666... is 1 + 683/1024 in float16.
  testing::Tensor y = RunOne("averagePool2d", {F16({1, 1, 1, 3}, {1, 2, 2})});
  EXPECT_THAT(y.values, ElementsAre(1 + 683.0 / 1024));
}

TEST(AveragePool, WindowsEntirelyInPaddingGiveZero) {
  testing::Tensor y = RunOne(
      "averagePool2d", {F32({1, 1, 1, 1}, {7})},
      A({{"windowDimensions", Ints{1, 1}}, {"padding", Ints{1, 1, 0, 0}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 3, 1}));
  EXPECT_THAT(y.values, ElementsAre(0, 7, 0));
}

TEST(L2Pool, CeilRoundingKeepsTheLastPartialWindow) {
  // Width 5, window 2, stride 2: ceil gives windows {1,5} {2,4} {3}.
  testing::Tensor y = RunOne("l2Pool2d", {F32({1, 1, 1, 5}, {1, 5, 2, 4, 3})},
                             A({{"windowDimensions", Ints{1, 2}},
                                {"strides", Ints{1, 2}},
                                {"roundingType", std::string("ceil")}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 1, 3}));
  EXPECT_THAT(y.values, ElementsAre(DoubleNear(std::sqrt(26.0), 1e-6),
                                    DoubleNear(std::sqrt(20.0), 1e-6), 3));
  testing::Tensor floor =
      RunOne("l2Pool2d", {F32({1, 1, 1, 5}, {1, 5, 2, 4, 3})},
             A({{"windowDimensions", Ints{1, 2}},
                {"strides", Ints{1, 2}},
                {"outputShapeRounding", std::string("floor")}}));
  EXPECT_EQ(floor.shape, (Ints{1, 1, 1, 2}));
}

TEST(L2Pool, PaddingAddsNothing) {
  // Window 2x2 over a 2x2 input padded by one on the bottom and right.
  testing::Tensor y = RunOne(
      "l2Pool2d", {F32({1, 1, 2, 2}, {3, 4, 0, 12})},
      A({{"windowDimensions", Ints{2, 2}}, {"padding", Ints{0, 1, 0, 1}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 2, 2}));
  EXPECT_THAT(y.values,
              ElementsAre(13, DoubleNear(std::sqrt(160.0), 1e-5), 12, 12));
}

TEST(MaxPool, DilatedWindow) {
  // 3 1 4 1
  // 5 9 2 6
  // 5 3 5 8
  // 9 7 9 3     window 2x2 with dilation 2 reads every other row and column.
  testing::Tensor x =
      F32({1, 1, 4, 4}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3});
  testing::Tensor y =
      RunOne("maxPool2d", {x},
             A({{"windowDimensions", Ints{2, 2}}, {"dilations", Ints{2, 2}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 2, 2}));
  EXPECT_THAT(y.values, ElementsAre(5, 8, 9, 9));
}

TEST(MaxPool, DilationStridePaddingNhwc) {
  // Two channels of a 1x5 row; window 1x2, dilation 2, stride 2, padding
  // one on the left: windows read columns {-1, 1}, {1, 3}, {3, 5}.
  testing::Tensor x = F32({1, 1, 5, 2}, {1, -1, 2, -2, 3, -3, 4, -4, 5, -5});
  testing::Tensor y = RunOne("maxPool2d", {x},
                             A({{"windowDimensions", Ints{1, 2}},
                                {"dilations", Ints{1, 2}},
                                {"strides", Ints{1, 2}},
                                {"padding", Ints{0, 0, 1, 0}},
                                {"layout", std::string("nhwc")}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 2, 2}));
  EXPECT_THAT(y.values, ElementsAre(2, -2, 4, -2));
}

TEST(MaxPool, IntegersAndNaN) {
  EXPECT_THAT(RunOne("maxPool2d",
                     {Of(ir::DType::kInt8, {1, 1, 2, 2}, {-5, -3, -128, -7})})
                  .values,
              ElementsAre(-3));
  EXPECT_THAT(RunOne("maxPool2d",
                     {Of(ir::DType::kUint8, {1, 2, 1, 2}, {200, 255, 0, 1})})
                  .values,
              ElementsAre(255, 1));
  EXPECT_THAT(RunOne("maxPool2d", {F32({1, 1, 1, 3}, {1, NAN, 2})}).values,
              ElementsAre(IsNan()));
  EXPECT_THAT(RunOne("maxPool2d", {F16({1, 1, 1, 2}, {-kInf, -1.5})}).values,
              ElementsAre(-1.5));
}

TEST(MaxPool, TwoByTwoAtStridesTwo) {
  // The 2x2/stride-2 loop: two planes of 4x4, NaN anywhere in a window and
  // -infinity; float16 and int8 through the same loop.
  const ir::Attrs pairs =
      A({{"windowDimensions", Ints{2, 2}}, {"strides", Ints{2, 2}}});
  testing::Tensor y = RunOne(
      "maxPool2d",
      {F32({1, 2, 4, 4}, {1,     2, 3, 4,     5,     6,     7,     8,   //
                          -kInf, 0, 9, NAN,   -kInf, -kInf, 1,     -2,  //
                          4,     3, 2, 1,     8,     7,     6,     5,   //
                          NAN,   0, 0, -kInf, 0,     0,     -kInf, -kInf})},
      pairs);
  EXPECT_EQ(y.shape, (Ints{1, 2, 2, 2}));
  EXPECT_THAT(y.values, ElementsAre(6, 8, 0, IsNan(), 8, 6, IsNan(), 0));
  EXPECT_THAT(
      RunOne("maxPool2d", {F16({1, 1, 2, 4}, {0.5, -1, 2, 3, 1.5, 0, -4, 2.5})},
             pairs)
          .values,
      ElementsAre(1.5, 3));
  EXPECT_THAT(RunOne("maxPool2d",
                     {Of(ir::DType::kInt8, {1, 1, 2, 4},
                         {-128, -5, 7, 1, -7, -6, 0, 3})},
                     pairs)
                  .values,
              ElementsAre(-5, 7));
  // An odd input (5x5 -> 2x2: the last row and column unused) takes the
  // same loop; padding (partial windows) the general one.
  std::vector<double> odd(25);
  for (int i = 0; i < 25; ++i) odd[i] = (i * 7) % 11;
  EXPECT_THAT(RunOne("maxPool2d", {F32({1, 1, 5, 5}, odd)}, pairs).values,
              ElementsAre(9, 10, 6, 9));
  EXPECT_THAT(
      RunOne("maxPool2d", {F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
             A({{"windowDimensions", Ints{2, 2}},
                {"strides", Ints{2, 2}},
                {"padding", Ints{0, 1, 0, 1}}}))
          .values,
      ElementsAre(5, 6, 8, 9));
}

// 2x2 windows at strides 2 in float32 (rows of 10 and 8 windows: eight at
// a time, then the rest): each window's maximum, NaN when it holds one,
// infinities kept — against a plain reference.
TEST(MaxPool, TwoByTwoRowsOfManyWindows) {
  for (auto [h, w] : {std::pair{6, 21}, std::pair{5, 17}}) {
    const int64_t n = 2, c = 3, oh = h / 2, ow = w / 2;
    std::vector<double> x(n * c * h * w);
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t r = static_cast<int64_t>((i * 7919) % 17);
      x[i] = r == 0   ? NAN
             : r == 1 ? kInf
             : r == 2 ? -kInf
                      : static_cast<double>(r % 5) - 2;
    }
    ir::Attrs attrs;
    attrs.Set("windowDimensions", Ints{2, 2});
    attrs.Set("strides", Ints{2, 2});
    testing::Tensor got = RunOne("maxPool2d", {F32({n, c, h, w}, x)}, attrs);
    ASSERT_EQ(got.values.size(), static_cast<size_t>(n * c * oh * ow));
    for (int64_t p = 0; p < n * c; ++p) {
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t q = 0; q < ow; ++q) {
          double most = -kInf;
          bool nan = false;
          for (int64_t i = 0; i < 2; ++i) {
            for (int64_t j = 0; j < 2; ++j) {
              const double v = x[(p * h + 2 * r + i) * w + 2 * q + j];
              nan |= std::isnan(v);
              most = std::max(most, v);
            }
          }
          const double value = got.values[(p * oh + r) * ow + q];
          if (nan) {
            EXPECT_TRUE(std::isnan(value)) << p << " " << r << " " << q;
          } else {
            EXPECT_EQ(value, most) << p << " " << r << " " << q;
          }
        }
      }
    }
  }
}

TEST(MaxPool, WindowsEntirelyInPaddingGiveTheLowestValue) {
  testing::Tensor y = RunOne(
      "maxPool2d", {F32({1, 1, 1, 1}, {7})},
      A({{"windowDimensions", Ints{1, 1}}, {"padding", Ints{0, 0, 1, 1}}}));
  EXPECT_THAT(y.values, ElementsAre(-kInf, 7, -kInf));
}

// resample2d (its kernel lives in resample.cc).

// maxPool2dGradient: each window's gradient to its first maximal tap
// (argMax's rule: ties go to the first, a NaN wins, the first NaN first),
// zeros elsewhere and in the rows and columns no window reaches — checked
// against a plain reference on inputs full of ties and NaNs: 3x3 windows
// (the general loop) and 2x2 (rows of 10 and 8 windows: eight at a time,
// then the rest).
TEST(MaxPoolGradient, FirstMaximalTapTakesEachWindowsGradient) {
  struct Case {
    int64_t h, w, kh, kw;
  };
  for (const Case& k :
       {Case{7, 8, 3, 3}, Case{6, 21, 2, 2}, Case{5, 17, 2, 2}}) {
    SCOPED_TRACE(::testing::Message() << k.h << "x" << k.w << " by " << k.kh);
    const int64_t n = 2, c = 3, h = k.h, w = k.w, kh = k.kh, kw = k.kw;
    const int64_t oh = h / kh, ow = w / kw;
    std::vector<double> x(n * c * h * w), dy(n * c * oh * ow);
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t r = static_cast<int64_t>((i * 7919) % 13);
      x[i] = r == 0 ? NAN : static_cast<double>(r % 4);  // ties and NaNs
    }
    for (size_t i = 0; i < dy.size(); ++i) {
      dy[i] = 1.0 + static_cast<double>(i);
    }
    ir::Attrs attrs;
    attrs.Set("windowDimensions", Ints{kh, kw});
    testing::Tensor got =
        RunOne("maxPool2dGradient",
               {F32({n, c, h, w}, x), F32({n, c, oh, ow}, dy)}, attrs);
    ASSERT_EQ(got.values.size(), x.size());
    std::vector<double> want(x.size(), 0.0);
    for (int64_t p = 0; p < n * c; ++p) {
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t q = 0; q < ow; ++q) {
          auto at = [&](int64_t i, int64_t j) {
            return (p * h + r * kh + i) * w + q * kw + j;
          };
          int64_t first = -1;
          for (int64_t i = 0; i < kh && first < 0; ++i) {  // the first NaN
            for (int64_t j = 0; j < kw && first < 0; ++j) {
              if (std::isnan(x[at(i, j)])) first = at(i, j);
            }
          }
          double most = -kInf;
          for (int64_t i = 0; i < kh; ++i) {
            for (int64_t j = 0; j < kw; ++j) {
              most = std::max(most, x[at(i, j)]);
            }
          }
          for (int64_t i = 0; i < kh && first < 0; ++i) {  // else the max
            for (int64_t j = 0; j < kw && first < 0; ++j) {
              if (x[at(i, j)] == most) first = at(i, j);
            }
          }
          want[first] = dy[(p * oh + r) * ow + q];
        }
      }
    }
    EXPECT_THAT(got.values, ElementsAreArray(want));
  }
}

TEST(MaxPoolGradient, ShapesThatDoNotTileAreRefused) {
  ir::Attrs attrs;
  attrs.Set("windowDimensions", Ints{2, 2});
  absl::StatusOr<std::vector<testing::Tensor>> got =
      testing::RunOp("maxPool2dGradient",
                     {F32({1, 1, 3, 4}, std::vector<double>(12, 0.0)),
                      F32({1, 1, 2, 2}, std::vector<double>(4, 0.0))},
                     attrs);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(std::string(got.status().message()),
              ::testing::HasSubstr("does not tile an input of [1, 1, 3, 4]"));
}

TEST(Resample2d, NearestUpsampleRepeats) {
  testing::Tensor y = RunOne("resample2d", {F32({1, 1, 2, 2}, {1, 2, 3, 4})},
                             A({{"scales", std::vector<double>{2, 2}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 4, 4}));
  EXPECT_THAT(y.values, ElementsAreArray({1, 1, 2, 2, 1, 1, 2, 2,  //
                                          3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Resample2d, NearestTiesGoDownOnAnyTwoAxes) {
  // Axes 0 and 3 (not adjacent). Axis 0: 2 -> 1 reads coordinate 0.5 ->
  // index 0. Axis 3: 4 -> 2 reads coordinates 0.5 and 2.5 -> 0 and 2.
  testing::Tensor y =
      RunOne("resample2d", {F32({2, 1, 1, 4}, {0, 1, 2, 3, 4, 5, 6, 7})},
             A({{"sizes", Ints{1, 2}}, {"axes", Ints{0, 3}}}));
  EXPECT_EQ(y.shape, (Ints{1, 1, 1, 2}));
  EXPECT_THAT(y.values, ElementsAre(0, 2));
}

TEST(Resample2d, LinearHalfPixelCentres) {
  // Width 2 -> 4: coordinates -0.25 (clamped to 0), 0.25, 0.75, 1.25
  // (clamped to 1).
  testing::Tensor y =
      RunOne("resample2d", {F32({1, 1, 1, 2}, {0, 4})},
             A({{"mode", std::string("linear")}, {"sizes", Ints{1, 4}}}));
  EXPECT_THAT(y.values, ElementsAre(0, 1, 3, 4));
  // Both axes at once, the axes given in reverse order: 2x2 -> 2x4 along
  // (width, height) = (4, 2).
  testing::Tensor z = RunOne("resample2d", {F32({1, 1, 2, 2}, {0, 4, 8, 12})},
                             A({{"mode", std::string("linear")},
                                {"sizes", Ints{4, 2}},
                                {"axes", Ints{3, 2}}}));
  EXPECT_EQ(z.shape, (Ints{1, 1, 2, 4}));
  EXPECT_THAT(z.values, ElementsAre(0, 1, 3, 4, 8, 9, 11, 12));
}

TEST(Resample2d, LinearOnBytesRoundsToNearest) {
  testing::Tensor y =
      RunOne("resample2d", {Of(ir::DType::kUint8, {1, 1, 1, 2}, {0, 255})},
             A({{"mode", std::string("linear")}, {"sizes", Ints{1, 4}}}));
  // 63.75 and 191.25.
  EXPECT_THAT(y.values, ElementsAre(0, 64, 191, 255));
}

}  // namespace
}  // namespace webnnm::backends::cpu
