// conv2d whose filter is larger than its result — a convolution's filter
// gradient as the autodiff rules write it (conv_large_filter.cc) — as
// direct loops when the result has at most nine positions: each of them
// keeps its sums in AVX-512 registers while the filter's rows stream past
// once.
//
// For y[n, o, p, q] = Σ_{c, r, s} x[n, c, p + r, q + s] · f[o, c, r, s]
// (nchw, oihw, stride, dilation 1, no padding) the kernel walks, for each
// (n, o), every (c, r): it loads the filter row f[o, c, r, :] in chunks of
// sixteen columns and, for each result position (p, q), the image row
// x[n, c, p + r, q :] beside it, and adds their products into lane s % 16
// of the position's sum with fused multiply-adds (three filters at a time:
// 27 sums in registers, each image row loaded once for the three). A
// position's value is then its sixteen lanes added in order. The Fashion
// CNN's first filter gradient (64 images of 28 x 28 against 26 x 26
// filters, 3 x 3 results) took 200 us on oneDNN's backward-weights
// primitive, whose blocked formats cannot use one input channel, and takes
// 55-65 us here; its second (8 x 64 x 13 x 13 against 16 x 64 x 11 x 11)
// 256 -> 230 us (docs/performance.md).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/dnnl_kernels.h"

namespace webnnm::backends::cpu {
namespace {

#if defined(__AVX512F__)

constexpr int kMaxPositions = 9;
constexpr int kBlock = 3;  // filters at a time

struct Geometry {
  int64_t n, c, h, w;  // the images
  int64_t o, kh, kw;   // the filter
  int64_t so, sc;      // the filter's strides along o and c (floats)
  int64_t xn, xc;      // the images' strides along n and c (floats)
  int64_t pw;          // the images' rows as copied: w rounded up to 16
  int64_t positions;   // of the result: oh x ow
  std::array<int64_t, kMaxPositions> offsets;  // of each in a copied image
};

// Filter rows [0, kw) of `o`..`o + B` against the images' rows in chunks
// of sixteen columns; every chunk adds into the same lanes (the lanes'
// sum is the result). A row's last chunk has its lanes past the row
// zeroed: `Tail` loads the whole chunk (the image copy has room after its
// last row; a filter row is followed by the next row, except the
// filters' very last, which MaskedTail loads masked) and zeroes the lanes
// in registers. The shape of this loop matters: written with masked loads
// of the tail or with the tail in a helper, GCC 12 keeps the sums in
// memory across chunks and the loop runs twice as long (and masked loads
// across two cache lines cost many times a whole load here).
template <int B, int NP, bool kMaskedTail>
[[gnu::always_inline]] inline void Row(const Geometry& g, const float* line,
                                       const float* filter, int64_t stride,
                                       __m512 (&acc)[B][NP]) {
  for (int64_t s = 0; s < g.kw; s += 16) {
    const int64_t left = g.kw - s;
    __m512 rows[B];
    if (left >= 16) {
      for (int b = 0; b < B; ++b) {
        rows[b] = _mm512_loadu_ps(filter + b * stride + s);
      }
      for (int i = 0; i < NP; ++i) {
        const __m512 v = _mm512_loadu_ps(line + s + g.offsets[i]);
        for (int b = 0; b < B; ++b) {
          acc[b][i] = _mm512_fmadd_ps(rows[b], v, acc[b][i]);
        }
      }
      continue;
    }
    const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1);
    for (int b = 0; b < B; ++b) {
      rows[b] = kMaskedTail
                    ? _mm512_maskz_loadu_ps(mask, filter + b * stride + s)
                    : _mm512_maskz_mov_ps(
                          mask, _mm512_loadu_ps(filter + b * stride + s));
    }
    for (int i = 0; i < NP; ++i) {
      const __m512 v =
          _mm512_maskz_mov_ps(mask, _mm512_loadu_ps(line + s + g.offsets[i]));
      for (int b = 0; b < B; ++b) {
        acc[b][i] = _mm512_fmadd_ps(rows[b], v, acc[b][i]);
      }
    }
  }
}

template <int B, int NP>
void DirectBlock(const Geometry& g, const float* x, const float* f, int64_t o,
                 float* y) {
  __m512 acc[B][NP];
  for (int b = 0; b < B; ++b) {
    for (int i = 0; i < NP; ++i) acc[b][i] = _mm512_setzero_ps();
  }
  const int64_t stride = g.so;
  for (int64_t c = 0; c < g.c; ++c) {
    const float* image = x + c * g.h * g.pw;
    const float* filter = f + o * g.so + c * g.sc;
    const int64_t rows = c + 1 < g.c ? g.kh : g.kh - 1;
    for (int64_t r = 0; r < rows; ++r) {
      Row<B, NP, false>(g, image + r * g.pw, filter + r * g.kw, stride, acc);
    }
  }
  const int64_t c = g.c - 1, r = g.kh - 1;
  Row<B, NP, true>(g, x + c * g.h * g.pw + r * g.pw,
                   f + o * g.so + c * g.sc + r * g.kw, stride, acc);
  for (int b = 0; b < B; ++b) {
    for (int i = 0; i < NP; ++i) {
      alignas(64) float lanes[16];
      _mm512_store_ps(lanes, acc[b][i]);
      float total = lanes[0];
      for (int l = 1; l < 16; ++l) total += lanes[l];
      y[(o + b) * NP + i] = total;
    }
  }
}

using Block = void (*)(const Geometry&, const float*, const float*, int64_t,
                       float*);

// Blocks of three filters (27 sums in registers at nine positions), then
// the one or two left: by positions (1..kMaxPositions), by filters (1..3).
using Blocks = std::array<Block, kBlock + 1>;

template <int NP>
constexpr Blocks BlocksOf() {
  return {nullptr, &DirectBlock<1, NP>, &DirectBlock<2, NP>,
          &DirectBlock<3, NP>};
}

template <size_t... NP>
constexpr std::array<Blocks, kMaxPositions + 1> BlockTable(
    std::index_sequence<NP...>) {
  return {Blocks{}, BlocksOf<NP + 1>()...};
}

constexpr std::array<Blocks, kMaxPositions + 1> kBlocks =
    BlockTable(std::make_index_sequence<kMaxPositions>());

// Each image is copied first into rows of pw floats that start on cache
// lines (zeros after its w columns, room for a whole chunk after the last
// row): the loads of a row at the first result column then never straddle
// two lines (loads across lines bound the loop otherwise: 90 us against
// 65 for the CNN's first filter gradient).
class DirectLargeFilterConvKernel : public Kernel {
 public:
  DirectLargeFilterConvKernel(Geometry g, const float* x, const float* f,
                              float* y)
      : g_(g),
        blocks_(kBlocks[g.positions]),
        x_(x),
        f_(f),
        y_(y),
        copy_(g.c * g.h * g.pw + 48, 0.0f) {
    image_ = copy_.data();
    while (reinterpret_cast<uintptr_t>(image_) % 64 != 0) ++image_;
  }

  absl::Status Run() override {
    for (int64_t n = 0; n < g_.n; ++n) {
      for (int64_t c = 0; c < g_.c; ++c) {
        const float* from = x_ + n * g_.xn + c * g_.xc;
        float* to = image_ + c * g_.h * g_.pw;
        for (int64_t row = 0; row < g_.h; ++row) {
          std::memcpy(to + row * g_.pw, from + row * g_.w,
                      sizeof(float) * g_.w);
        }
      }
      float* result = y_ + n * g_.o * g_.positions;
      for (int64_t o = 0; o < g_.o; o += kBlock) {
        blocks_[std::min<int64_t>(kBlock, g_.o - o)](g_, image_, f_, o, result);
      }
    }
    return absl::OkStatus();
  }

  std::string implementation() const override {
    return "C++ (direct, filter larger than the result)";
  }

 private:
  Geometry g_;
  Blocks blocks_;
  const float* x_;
  const float* f_;
  float* y_;
  std::vector<float> copy_;
  float* image_;  // in copy_, on a cache line
};

#endif  // __AVX512F__

}  // namespace

bool DirectLargeFilterConv2dRuns(const ir::Node& conv, const ir::TensorType& x,
                                 const ir::TensorType& f,
                                 const ir::TensorType& y, bool bias,
                                 int threads) {
#if defined(__AVX512F__)
  const ir::Attrs& a = conv.attrs;
  if (bias || threads != 1 || a.GetInt("groups", 1) != 1 ||
      a.GetString("inputLayout", "nchw") != "nchw" ||
      a.GetString("filterLayout", "oihw") != "oihw") {
    return false;
  }
  if (x.dtype != ir::DType::kFloat32 || f.dtype != ir::DType::kFloat32 ||
      y.dtype != ir::DType::kFloat32 || x.shape.size() != 4 ||
      f.shape.size() != 4 || y.shape.size() != 4) {
    return false;
  }
  for (const char* name : {"strides", "dilations"}) {
    for (int64_t v : a.GetInts(name, {1, 1})) {
      if (v != 1) return false;
    }
  }
  for (int64_t v : a.GetInts("padding", {0, 0, 0, 0})) {
    if (v != 0) return false;
  }
  const int64_t h = x.shape[2], w = x.shape[3];
  const int64_t kh = f.shape[2], kw = f.shape[3];
  const int64_t oh = y.shape[2], ow = y.shape[3];
  return f.shape[1] == x.shape[1] && y.shape[0] == x.shape[0] &&
         y.shape[1] == f.shape[0] && oh == h - kh + 1 && ow == w - kw + 1 &&
         kw >= 1 && kw <= 32 && kh * kw > oh * ow && oh * ow <= kMaxPositions;
#else
  (void)conv, (void)x, (void)f, (void)y, (void)bias, (void)threads;
  return false;
#endif
}

std::unique_ptr<Kernel> TryDirectLargeFilterConv2d(const KernelIO& io) {
#if defined(__AVX512F__)
  const ir::TensorType& x = *io.in_types[0];
  const ir::TensorType& f = *io.in_types[1];
  const ir::TensorType& y = *io.out_types[0];
  if (!io.fused.empty() ||
      !DirectLargeFilterConv2dRuns(io.node, x, f, y, io.has(2),
                                   io.context.threads())) {
    return nullptr;
  }
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t o = f.shape[0], kh = f.shape[2], kw = f.shape[3];
  const int64_t oh = y.shape[2], ow = y.shape[3];
  const int64_t taps = kh * kw, image = h * w;
  // A folded transpose (KernelIO::transposed): the buffer holds the
  // operand with its first two dimensions swapped.
  const bool tx = io.is_transposed(0), tf = io.is_transposed(1);
  Geometry g{n,
             c,
             h,
             w,
             o,
             kh,
             kw,
             tf ? taps : c * taps,
             tf ? o * taps : taps,
             tx ? image : c * image,
             tx ? n * image : image,
             (w + 15) / 16 * 16,
             oh * ow,
             {}};
  for (int64_t p = 0; p < oh; ++p) {
    for (int64_t q = 0; q < ow; ++q) g.offsets[p * ow + q] = p * g.pw + q;
  }
  return std::make_unique<DirectLargeFilterConvKernel>(
      g, reinterpret_cast<const float*>(io.in[0]),
      reinterpret_cast<const float*>(io.in[1]),
      reinterpret_cast<float*>(io.out[0]));
#else
  (void)io;
  return nullptr;
#endif
}

}  // namespace webnnm::backends::cpu
