// CPU kernels on oneDNN (matmul, gemm, conv2d, convTranspose2d) and the
// normalizations and softmax, on cases worked out by hand.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::F16;
using testing::F32;
using ::testing::Pointwise;
using testing::RunOne;

MATCHER_P(Near, tolerance, "") {
  return std::fabs(std::get<0>(arg) - std::get<1>(arg)) <= tolerance;
}

TEST(Matmul, BroadcastsBatches) {
  // [2, 1, 2] x [2, 1]: each batch row times the column (1, 1).
  auto y =
      RunOne("matmul", {F32({2, 1, 2}, {1, 2, 3, 4}), F32({2, 1}, {1, 1})});
  EXPECT_THAT(y.shape, ElementsAre(2, 1, 1));
  EXPECT_THAT(y.values, ElementsAre(3, 7));
}

TEST(Matmul, Float16RoundsTheResult) {
  // 1/3 * 3 accumulates in float32; 2049 is not a float16 (rounds to 2048).
  auto y = RunOne("matmul", {F16({1, 2}, {2048, 1}), F16({2, 1}, {1, 1})});
  EXPECT_THAT(y.values, ElementsAre(2048));
}

TEST(Gemm, TransposesScalesAndAddsC) {
  // A^T = [[1, 3], [2, 4]] for A = [[1, 2], [3, 4]]; B = I.
  auto y = RunOne("gemm",
                  {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {1, 0, 0, 1}),
                   F32({2}, {10, 20})},
                  A({{"aTranspose", true}, {"alpha", 2.0}, {"beta", 0.5}}));
  EXPECT_THAT(y.values, ElementsAre(7, 16, 9, 18));
}

TEST(Conv2d, SumsTheWindow) {
  // A 3x3 input of ones, a 2x2 filter of ones: every output is 4.
  auto y = RunOne("conv2d", {F32({1, 1, 3, 3}, std::vector<double>(9, 1)),
                             F32({1, 1, 2, 2}, {1, 1, 1, 1}), F32({1}, {0.5})});
  EXPECT_THAT(y.shape, ElementsAre(1, 1, 2, 2));
  EXPECT_THAT(y.values, ElementsAre(4.5, 4.5, 4.5, 4.5));
}

TEST(Conv2d, DepthwiseInNhwcWithPadding) {
  // Two channels, groups=2, a 1x1 filter scaling channel c by c+1.
  auto y = RunOne("conv2d",
                  {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({2, 1, 1, 1}, {1, 2})},
                  A({{"groups", int64_t{2}},
                     {"inputLayout", std::string("nhwc")},
                     {"filterLayout", std::string("ohwi")},
                     {"padding", std::vector<int64_t>{0, 0, 1, 0}}}));
  EXPECT_THAT(y.shape, ElementsAre(1, 1, 3, 2));
  EXPECT_THAT(y.values, ElementsAre(0, 0, 1, 4, 3, 8));
}

TEST(ConvTranspose2d, SpreadsEachInput) {
  // Stride 2, a 2x2 filter of ones: each input fills its own 2x2 block.
  auto y =
      RunOne("convTranspose2d",
             {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({1, 1, 2, 2}, {1, 1, 1, 1})},
             A({{"strides", std::vector<int64_t>{2, 2}}}));
  EXPECT_THAT(y.shape, ElementsAre(1, 1, 4, 4));
  EXPECT_THAT(y.values,
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
}

TEST(ConvTranspose2d, OutputPaddingAddsRowsAndColumns) {
  auto y = RunOne("convTranspose2d",
                  {F32({1, 1, 1, 1}, {5}), F32({1, 1, 1, 1}, {2})},
                  A({{"strides", std::vector<int64_t>{2, 2}},
                     {"outputPadding", std::vector<int64_t>{1, 1}}}));
  EXPECT_THAT(y.shape, ElementsAre(1, 1, 2, 2));
  EXPECT_THAT(y.values, ElementsAre(10, 0, 0, 0));
}

TEST(Softmax, AnyAxisAndLargeValues) {
  auto y = RunOne("softmax", {F32({2, 2}, {1000, 1000, 0, 1})},
                  A({{"axis", int64_t{0}}}));
  EXPECT_THAT(y.values, Pointwise(Near(1e-6), std::vector<double>{1, 1, 0, 0}));
  y = RunOne("softmax", {F32({2}, {0, std::log(3.0)})});
  EXPECT_THAT(y.values, Pointwise(Near(1e-6), std::vector<double>{0.25, 0.75}));
}

TEST(Normalization, LayerOverNonContiguousAxes) {
  // Normalizing over axes [0, 2] of [2, 1, 2]: one group of four values.
  auto y = RunOne("layerNormalization", {F32({2, 1, 2}, {1, 2, 3, 4})},
                  A({{"axes", std::vector<int64_t>{0, 2}}, {"epsilon", 0.0}}));
  double s = std::sqrt(1.25);
  EXPECT_THAT(y.values,
              Pointwise(Near(1e-6), std::vector<double>{-1.5 / s, -0.5 / s,
                                                        0.5 / s, 1.5 / s}));
}

TEST(Normalization, BatchWithGivenStatistics) {
  auto y = RunOne("batchNormalization",
                  {F32({1, 2, 1}, {3, 10}), F32({2}, {1, 10}), F32({2}, {4, 1}),
                   F32({2}, {2, 1}), F32({2}, {0, 5})},
                  A({{"epsilon", 0.0}}));
  EXPECT_THAT(y.values, ElementsAre(2, 5));
}

TEST(Normalization, InstanceInNhwc) {
  auto y = RunOne("instanceNormalization", {F32({1, 1, 2, 2}, {1, 10, 3, 20})},
                  A({{"layout", std::string("nhwc")}, {"epsilon", 0.0}}));
  EXPECT_THAT(y.values,
              Pointwise(Near(1e-6), std::vector<double>{-1, -1, 1, 1}));
}

}  // namespace
}  // namespace webnnm::backends::cpu
