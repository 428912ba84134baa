// The conv2d kernels against the definition and each other: oneDNN's
// (blocked formats, backward weights for a filter larger than its result),
// the direct loops of one input channel (with fused links) and of a large
// filter with a small result.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/one_kernel.h"
#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using testing::Ran;
using testing::Random;
using testing::RunOnce;
using testing::Tensor;
using Ints = std::vector<int64_t>;
using Operands = std::vector<std::optional<Tensor>>;

constexpr ir::DType kF32 = ir::DType::kFloat32;
constexpr ir::DType kF16 = ir::DType::kFloat16;

// conv2d with a filter larger than its result (a filter gradient) runs as
// oneDNN's backward weights; the reference run takes the forward primitive.
void ExpectLargeFilterConv(const Operands& operands, const ir::Attrs& attrs) {
  Ran fast = RunOnce("conv2d", operands, attrs, /*reference=*/false);
  Ran plain = RunOnce("conv2d", operands, attrs, /*reference=*/true);
  EXPECT_THAT(fast.implementation, ::testing::HasSubstr("backward weights"));
  EXPECT_THAT(plain.implementation,
              ::testing::Not(::testing::HasSubstr("backward weights")));
  const bool half = operands[0]->dtype == kF16;
  ASSERT_EQ(fast.values.size(), plain.values.size());
  ASSERT_FALSE(plain.values.empty());
  for (size_t i = 0; i < plain.values.size(); ++i) {
    const double a = fast.values[i], b = plain.values[i];
    EXPECT_NEAR(a, b, (half ? 2e-3 : 1e-4) * std::max(1.0, std::fabs(b)))
        << "element " << i;
  }
}

TEST(LargeFilterConv2d, MatchesTheForwardPrimitive) {
  struct Case {
    Ints x, f;
    ir::Attrs attrs;
  };
  const std::vector<Case> cases = {
      // Two "images", padding, strides (dilations of the swapped problem).
      {{2, 6, 9, 9},
       {3, 6, 7, 7},
       A({{"padding", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}})},
      // Dilations (strides of the swapped problem), asymmetric padding.
      {{2, 5, 11, 10},
       {3, 5, 6, 5},
       A({{"dilations", Ints{2, 2}}, {"padding", Ints{1, 0, 0, 1}}})},
  };
  uint32_t seed = 80;
  for (const Case& c : cases) {
    SCOPED_TRACE(seed);
    ExpectLargeFilterConv(
        {Random(kF32, c.x, seed), Random(kF32, c.f, seed + 1)}, c.attrs);
    seed += 2;
  }
  // nhwc input with an ohwi filter, and float16.
  ExpectLargeFilterConv(
      {Random(kF32, {1, 12, 12, 16}, 90), Random(kF32, {4, 10, 10, 16}, 91)},
      A({{"inputLayout", std::string("nhwc")},
         {"filterLayout", std::string("ohwi")}}));
  ExpectLargeFilterConv(
      {Random(kF16, {1, 16, 12, 12}, 92), Random(kF16, {4, 16, 10, 10}, 93)},
      {});
  // A small filter keeps the forward primitive.
  Ran small =
      RunOnce("conv2d",
              {Random(kF32, {2, 3, 8, 8}, 96), Random(kF32, {4, 3, 3, 3}, 97)},
              {}, false);
  EXPECT_THAT(small.implementation,
              ::testing::Not(::testing::HasSubstr("backward weights")));
}

// conv2d by its definition: nchw input, oihw filter, optional bias.
std::vector<double> NaiveConv2d(const Tensor& x, const Tensor& f,
                                const Tensor* bias, int64_t pad, int64_t stride,
                                Ints* shape);

TEST(LargeFilterConv2d, SmallResultsRunDirectAndMatchTheDefinition) {
  struct Case {
    Ints x, f;
  };
  const std::vector<Case> cases = {
      // The Fashion CNN's first filter gradient: rows of a whole chunk and
      // a tail of ten columns, 3 x 3 results, eight filters (3 + 3 + 2).
      {{1, 64, 28, 28}, {8, 64, 26, 26}},
      // Its second: tails alone (11 columns), two images, seven filters.
      {{2, 5, 13, 13}, {7, 5, 11, 11}},
      // Whole chunks alone (16 and 32 columns), 1 x 3 and 2 x 3 results.
      {{1, 3, 12, 18}, {4, 3, 12, 16}},
      {{1, 2, 9, 34}, {2, 2, 8, 32}},
      // One position, one filter, one channel.
      {{1, 1, 6, 5}, {1, 1, 6, 5}},
  };
  uint32_t seed = 140;
  for (const Case& c : cases) {
    SCOPED_TRACE(seed);
    const Tensor x = Random(kF32, c.x, seed), f = Random(kF32, c.f, seed + 1);
    seed += 2;
    Ran ran = RunOnce("conv2d", {x, f}, {}, false);
    EXPECT_EQ(ran.implementation,
              "conv2d: C++ (direct, filter larger than the result)");
    Ints shape;
    const std::vector<double> want = NaiveConv2d(x, f, nullptr, 0, 1, &shape);
    // Float sums of up to 43,000 products: within 1e-5 of the sum of the
    // products' magnitudes (a chunk or a row left out misses by far more).
    Tensor ax = x, af = f;
    for (double& v : ax.values) v = std::fabs(v);
    for (double& v : af.values) v = std::fabs(v);
    const std::vector<double> size = NaiveConv2d(ax, af, nullptr, 0, 1, &shape);
    ASSERT_EQ(ran.values.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(ran.values[i], want[i], 1e-5 * size[i]) << "element " << i;
    }
  }
  // Infinities and NaNs reach exactly the results whose sums hold them
  // (the lanes past a row are zeros, not the next row's values).
  Tensor x = Random(kF32, {1, 2, 13, 13}, 150);
  Tensor f = Random(kF32, {4, 2, 11, 11}, 151);
  x.values[0 * 169 + 0 * 13 + 12] = INFINITY;        // read by q = 2 only
  f.values[(3 * 2 + 1) * 121 + 10 * 11 + 10] = NAN;  // filter 3's last tap
  Ran ran = RunOnce("conv2d", {x, f}, {}, false);
  EXPECT_EQ(ran.implementation,
            "conv2d: C++ (direct, filter larger than the result)");
  Ints shape;
  const std::vector<double> want = NaiveConv2d(x, f, nullptr, 0, 1, &shape);
  ASSERT_EQ(ran.values.size(), want.size());
  int special = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(std::isnan(ran.values[i]), std::isnan(want[i]));
    EXPECT_EQ(std::isinf(ran.values[i]), std::isinf(want[i]));
    special += !std::isfinite(want[i]);
    if (std::isinf(want[i])) EXPECT_EQ(ran.values[i], want[i]);
    if (std::isfinite(want[i])) {
      EXPECT_NEAR(ran.values[i], want[i],
                  1e-5 * std::max(1.0, std::fabs(want[i])));
    }
  }
  EXPECT_GT(special, 9);
  EXPECT_LT(special, 36);
  // Padding, strides or a larger result keep oneDNN's primitive.
  Ran padded = RunOnce(
      "conv2d",
      {Random(kF32, {1, 4, 12, 12}, 152), Random(kF32, {2, 4, 12, 12}, 153)},
      A({{"padding", Ints{1, 1, 1, 1}}}), false);
  EXPECT_THAT(padded.implementation, ::testing::HasSubstr("backward weights"));
  Ran wide = RunOnce(
      "conv2d",
      {Random(kF32, {1, 4, 14, 14}, 154), Random(kF32, {2, 4, 10, 10}, 155)},
      {}, false);
  EXPECT_THAT(wide.implementation, ::testing::HasSubstr("backward weights"));
}

// conv2d by its definition: nchw input, oihw filter, optional bias.
std::vector<double> NaiveConv2d(const Tensor& x, const Tensor& f,
                                const Tensor* bias, int64_t pad, int64_t stride,
                                Ints* shape) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t o = f.shape[0], kh = f.shape[2], kw = f.shape[3];
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w + 2 * pad - kw) / stride + 1;
  *shape = {n, o, oh, ow};
  std::vector<double> y;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < o; ++k) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double sum = bias ? bias->values[k] : 0.0;
          for (int64_t ch = 0; ch < c; ++ch) {
            for (int64_t r = 0; r < kh; ++r) {
              for (int64_t s = 0; s < kw; ++s) {
                const int64_t yy = i * stride + r - pad,
                              xx = j * stride + s - pad;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                sum += x.values[((b * c + ch) * h + yy) * w + xx] *
                       f.values[((k * c + ch) * kh + r) * kw + s];
              }
            }
          }
          y.push_back(sum);
        }
      }
    }
  }
  return y;
}

TEST(Conv2d, ManyChannelsRunInTheirOwnFormatsAndMatchTheDefinition) {
  // 8 -> 16 channels on nchw: oneDNN's blocked convolution with reorders.
  const Tensor x = Random(kF32, {3, 8, 9, 7}, 120);
  const Tensor f = Random(kF32, {16, 8, 3, 3}, 121);
  const Tensor bias = Random(kF32, {16}, 122);
  const ir::Attrs attrs =
      A({{"padding", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}});
  Ran ran = RunOnce("conv2d", {x, f, bias}, attrs, false);
  EXPECT_THAT(ran.implementation, ::testing::HasSubstr("reordered"));
  Ints shape;
  std::vector<double> want = NaiveConv2d(x, f, &bias, 1, 2, &shape);
  ASSERT_EQ(ran.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(ran.values[i], want[i],
                1e-4 * std::max(1.0, std::fabs(want[i])))
        << "element " << i;
  }
  // Its transposed convolution (the input gradient: 16 -> 8 channels)
  // reordered too: <convTranspose2d(dy, f), x> = <dy, conv2d(x, f)>.
  const Tensor dy = Random(kF32, shape, 123);
  Ran back = RunOnce("convTranspose2d", {dy, f},
                     A({{"padding", Ints{1, 1, 1, 1}},
                        {"strides", Ints{2, 2}},
                        {"filterLayout", std::string("iohw")},
                        {"outputSizes", Ints{9, 7}}}),
                     false);
  EXPECT_THAT(back.implementation, ::testing::HasSubstr("reordered"));
  std::vector<double> plain = NaiveConv2d(x, f, nullptr, 1, 2, &shape);
  ASSERT_EQ(back.values.size(), x.values.size());
  double left = 0, right = 0;
  for (size_t i = 0; i < x.values.size(); ++i) {
    left += back.values[i] * x.values[i];
  }
  for (size_t i = 0; i < plain.size(); ++i) right += dy.values[i] * plain[i];
  EXPECT_NEAR(left, right, 1e-4 * std::max(1.0, std::fabs(right)));
  // One input channel keeps our layout.
  Ran one = RunOnce(
      "conv2d",
      {Random(kF32, {2, 1, 8, 8}, 124), Random(kF32, {8, 1, 3, 3}, 125)},
      A({{"strides", Ints{2, 2}}}), false);
  EXPECT_THAT(one.implementation,
              ::testing::Not(::testing::HasSubstr("reordered")));
}

TEST(Conv2d, OneInputChannelRunsDirectAndMatchesTheDefinition) {
  const Tensor x = Random(kF32, {3, 1, 9, 7}, 130);
  const Tensor f = Random(kF32, {5, 1, 3, 3}, 131);
  const Tensor bias = Random(kF32, {5}, 132);
  for (int64_t pad : {0, 1, 2}) {
    SCOPED_TRACE(pad);
    Ran ran = RunOnce("conv2d", {x, f, bias},
                      A({{"padding", Ints{pad, pad, pad, pad}}}), false);
    EXPECT_EQ(ran.implementation, "conv2d: C++ (direct, one input channel)");
    Ints shape;
    std::vector<double> want = NaiveConv2d(x, f, &bias, pad, 1, &shape);
    ASSERT_EQ(ran.values.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(ran.values[i], want[i],
                  1e-5 * std::max(1.0, std::fabs(want[i])))
          << "element " << i;
    }
  }
  // The 3x3 filter's sums in the scalar loop's order, bit for bit: the
  // bias, then each tap's product (rounded) added row by row.
  {
    const Tensor x3 = Random(kF32, {2, 1, 7, 37}, 134);
    const Tensor f3 = Random(kF32, {6, 1, 3, 3}, 135);
    const Tensor b3 = Random(kF32, {6}, 136);
    Ran ran = RunOnce("conv2d", {x3, f3, b3}, {}, false);
    EXPECT_EQ(ran.implementation, "conv2d: C++ (direct, one input channel)");
    ASSERT_EQ(ran.values.size(), 2u * 6 * 5 * 35);
    size_t at = 0;
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t o = 0; o < 6; ++o) {
        for (int64_t i = 0; i < 5; ++i) {
          for (int64_t j = 0; j < 35; ++j) {
            float acc = static_cast<float>(b3.values[o]);
            for (int64_t r = 0; r < 3; ++r) {
              for (int64_t c = 0; c < 3; ++c) {
                const float product =
                    static_cast<float>(
                        x3.values[(n * 7 + i + r) * 37 + j + c]) *
                    static_cast<float>(f3.values[o * 9 + r * 3 + c]);
                acc += product;
              }
            }
            EXPECT_EQ(static_cast<float>(ran.values[at]), acc)
                << n << " " << o << " " << i << " " << j;
            ++at;
          }
        }
      }
    }
  }
  // Another filter size (the general loop rather than the 3x3 one).
  const Tensor f24 = Random(kF32, {4, 1, 2, 4}, 133);
  Ran other =
      RunOnce("conv2d", {x, f24}, A({{"padding", Ints{1, 1, 1, 1}}}), false);
  EXPECT_EQ(other.implementation, "conv2d: C++ (direct, one input channel)");
  Ints other_shape;
  std::vector<double> other_want =
      NaiveConv2d(x, f24, nullptr, 1, 1, &other_shape);
  ASSERT_EQ(other.values.size(), other_want.size());
  for (size_t i = 0; i < other_want.size(); ++i) {
    EXPECT_NEAR(other.values[i], other_want[i],
                1e-5 * std::max(1.0, std::fabs(other_want[i])))
        << "element " << i;
  }
  // The filter in hwio: the same convolution, without bias.
  Tensor hwio = f;
  hwio.shape = {3, 3, 1, 5};
  for (int64_t k = 0; k < 5; ++k) {
    for (int64_t p = 0; p < 9; ++p)
      hwio.values[p * 5 + k] = f.values[k * 9 + p];
  }
  Ran ran = RunOnce("conv2d", {x, hwio},
                    A({{"filterLayout", std::string("hwio")}}), false);
  EXPECT_EQ(ran.implementation, "conv2d: C++ (direct, one input channel)");
  Ints shape;
  std::vector<double> want = NaiveConv2d(x, f, nullptr, 0, 1, &shape);
  ASSERT_EQ(ran.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(ran.values[i], want[i],
                1e-5 * std::max(1.0, std::fabs(want[i])))
        << "element " << i;
  }
}

}  // namespace
}  // namespace webnnm::backends::cpu
