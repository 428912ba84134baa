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

// Matmuls too small for oneDNN run on loops that sum each result in double,
// products in order, rounded once: exactly what this test computes, for
// every width the loops specialize (1-4, 8) and others, batches broadcast.
TEST(Matmul, SmallOnesSumInDoubleInOrder) {
  for (int64_t n : {1, 2, 3, 4, 5, 8, 9}) {
    const int64_t batches = 2, m = 5, k = 7;
    std::vector<double> a(batches * m * k), b(k * n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(i * 0.37) * 3;
    for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(i * 0.91) / 3;
    for (double& v : a) v = static_cast<float>(v);
    for (double& v : b) v = static_cast<float>(v);
    // Row 0 ends in 2^60 and -2^60 against b rows of ones: summed in order
    // the products before them are lost (0), in any other order some not.
    a[k - 2] = std::ldexp(1.0, 60);
    a[k - 1] = -std::ldexp(1.0, 60);
    for (int64_t j = 0; j < n; ++j) b[(k - 2) * n + j] = b[(k - 1) * n + j] = 1;
    auto y = RunOne("matmul", {F32({batches, m, k}, a), F32({k, n}, b)});
    ASSERT_EQ(y.values.size(), static_cast<size_t>(batches * m * n));
    for (int64_t t = 0; t < batches; ++t) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p) {
            sum += a[(t * m + i) * k + p] * b[p * n + j];
          }
          EXPECT_EQ(y.values[(t * m + i) * n + j], static_cast<float>(sum))
              << "n " << n << " at " << t << "," << i << "," << j;
        }
      }
    }
  }
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

// A batch of short rows (eight at a time on AVX-512, a partial last block)
// gives each row the same bits as that row alone: large, equal, infinite
// and NaN values included.
TEST(Softmax, ShortRowsInABatchAsAlone) {
  const int64_t rows = 21, length = 5;
  std::vector<double> x(rows * length);
  for (int64_t i = 0; i < rows * length; ++i) {
    x[i] = std::sin(static_cast<double>(i) * 1.7) * 30;
  }
  x[2 * length + 1] = NAN;
  x[5 * length + 3] = INFINITY;
  x[8 * length] = -INFINITY;
  for (int64_t k = 0; k < length; ++k) x[11 * length + k] = -INFINITY;
  for (int64_t k = 0; k < length; ++k) x[13 * length + k] = 88;
  x[20 * length + 4] = 1e30;
  const testing::Tensor batch = RunOne("softmax", {F32({rows, length}, x)});
  ASSERT_EQ(batch.values.size(), x.size());
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row(x.begin() + r * length,
                            x.begin() + (r + 1) * length);
    const testing::Tensor alone = RunOne("softmax", {F32({1, length}, row)});
    for (int64_t k = 0; k < length; ++k) {
      const double a = batch.values[r * length + k], b = alone.values[k];
      EXPECT_TRUE(std::isnan(a) ? std::isnan(b) : a == b)
          << "row " << r << " column " << k << ": " << a << " vs " << b;
    }
  }
  // Many random rows against the same values along the first axis (the
  // strided loop), both on the C++ loops.
  const int64_t many = 20000, three = 3;
  std::vector<double> rows_first(many * three), columns_first(many * three);
  uint32_t state = 12345;
  for (int64_t r = 0; r < many; ++r) {
    for (int64_t k = 0; k < three; ++k) {
      state = state * 1664525u + 1013904223u;
      const double v = (state / 4294967296.0 - 0.5) * 40;
      rows_first[r * three + k] = v;
      columns_first[k * many + r] = v;
    }
  }
  const testing::RunOptions loops{.library_minimum_elements = int64_t{1} << 40};
  auto along_rows =
      testing::RunOp("softmax", {F32({many, three}, rows_first)}, {}, loops);
  auto along_columns =
      testing::RunOp("softmax", {F32({three, many}, columns_first)},
                     A({{"axis", int64_t{0}}}), loops);
  ASSERT_TRUE(along_rows.ok() && along_columns.ok());
  int differ = 0;
  for (int64_t r = 0; r < many; ++r) {
    for (int64_t k = 0; k < three; ++k) {
      differ += (*along_rows)[0].values[r * three + k] !=
                (*along_columns)[0].values[k * many + r];
    }
  }
  EXPECT_EQ(differ, 0);
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
