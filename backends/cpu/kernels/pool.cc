// 2-D pooling: averagePool2d, l2Pool2d (float32, float16) and maxPool2d
// (float32, float16, int8, uint8), nchw or nhwc, with padding, strides,
// dilations and any output size the rule allows (floor, ceil, outputSizes).
//
// C++ loops. Padding never contributes: each output element reduces only the
// window taps that fall inside the input (the tap ranges of every output row
// and column are worked out at compile time), and the average divides by the
// number of those taps. A window with no tap inside the input (possible with
// large padding or ceil rounding) gives 0 for average and L2 pooling and the
// lowest value of the type (-infinity for floats) for max pooling. Max pooling
// propagates NaN. float16 is computed in float32 and rounded once.
#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/pairs_avx512.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

enum class PoolKind { kAverage, kL2, kMax };

// The window taps of one output position along one axis that fall inside
// the input: taps k in [begin, end), reading input index first + k * dilation.
struct TapRange {
  int64_t begin = 0, end = 0;
  int64_t first = 0;  // input index of tap 0 (may be negative)
};

std::vector<TapRange> TapRanges(int64_t input, int64_t output, int64_t window,
                                int64_t pad_begin, int64_t stride,
                                int64_t dilation) {
  std::vector<TapRange> ranges(output);
  for (int64_t o = 0; o < output; ++o) {
    TapRange& r = ranges[o];
    r.first = o * stride - pad_begin;
    // Smallest k with first + k * dilation >= 0.
    r.begin = r.first >= 0 ? 0 : (-r.first + dilation - 1) / dilation;
    // Largest k + 1 with first + k * dilation < input.
    r.end = r.first >= input ? 0 : (input - 1 - r.first) / dilation + 1;
    r.end = std::min(r.end, window);
    if (r.begin > r.end) r.begin = r.end;
  }
  return ranges;
}

template <typename C>
C LowestValue() {
  if constexpr (std::is_floating_point_v<C>) {
    return -std::numeric_limits<C>::infinity();
  } else {
    return std::numeric_limits<C>::lowest();
  }
}

// max that keeps NaN once seen (for integers: plain max).
template <typename C>
inline C MaxNaN(C m, C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return Select((v > m) | (v != v), v, m);  // branchless: taps are random
  } else {
    return v > m ? v : m;
  }
}

// One row of 2x2 max pooling in float32: out[c] = the windows' maximum over
// rows r0 and r1 at columns 2c and 2c+1 — each column's two rows first,
// then the two columns, each step MaxNaN (the scalar loop's order, so the
// same bits, NaN payloads included) — sixteen input columns at a time.
void MaxPairsRow(const float* r0, const float* r1, float* out, int64_t n) {
  int64_t c = 0;
#if defined(__AVX512F__) && defined(__AVX512VL__)
  const __m512i even = EvenLanes(), odd = OddLanes();
  for (; c < n; c += 8) {
    const int64_t left = std::min<int64_t>(8, n - c);
    const __mmask8 lanes = WindowLanes(left);
    const __mmask16 pairs = PairLanes(left);
    const __m512 m = _mm512_maskz_loadu_ps(pairs, r0 + 2 * c);
    const __m512 v = _mm512_maskz_loadu_ps(pairs, r1 + 2 * c);
    // MaxNaN(m, v): v where v > m or v is NaN.
    const __m512 col =
        _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, m, _CMP_GT_OQ) |
                                 _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                             m, v);
    const __m256 left_col =
        _mm512_castps512_ps256(_mm512_permutexvar_ps(even, col));
    const __m256 right_col =
        _mm512_castps512_ps256(_mm512_permutexvar_ps(odd, col));
    const __m256 result = _mm256_mask_blend_ps(
        _mm256_cmp_ps_mask(right_col, left_col, _CMP_GT_OQ) |
            _mm256_cmp_ps_mask(right_col, right_col, _CMP_UNORD_Q),
        left_col, right_col);
    _mm256_mask_storeu_ps(out + c, lanes, result);
  }
#endif
  for (; c < n; ++c) {
    out[c] = MaxNaN(MaxNaN(r0[2 * c], r1[2 * c]),
                    MaxNaN(r0[2 * c + 1], r1[2 * c + 1]));
  }
}

struct PoolGeometry {
  int64_t batch = 0, channels = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t dil_h = 1, dil_w = 1;
  bool nhwc = false;
  std::vector<TapRange> rows, cols;
  // Max pooling, nchw, every output reading the 2x2 taps at (2 oh, 2 ow),
  // all inside the input (2x2 windows, strides 2, no padding): the common
  // case, with its own loop.
  bool max_pairs = false;
};

// Whether `ranges` are the full two-tap windows at 0, 2, 4, ...
bool PairRanges(const std::vector<TapRange>& ranges) {
  for (size_t o = 0; o < ranges.size(); ++o) {
    const TapRange& r = ranges[o];
    if (r.begin != 0 || r.end != 2 || r.first != 2 * static_cast<int64_t>(o)) {
      return false;
    }
  }
  return true;
}

template <typename T>
class PoolKernel : public Kernel {
 public:
  using C = Compute<T>;
  // Accumulator of averages and sums of squares.
  using Acc = std::conditional_t<std::is_floating_point_v<C>, C, float>;

  PoolKernel(PoolKind kind, PoolGeometry g, const T* x, T* y)
      : kind_(kind), g_(std::move(g)), x_(x), y_(y) {
    if (g_.nhwc) {
      acc_.resize(g_.channels);
      max_.resize(g_.channels);
    } else if (g_.max_pairs) {
      max_.resize(2 * g_.out_w);
    }
  }

  absl::Status Run() override {
    if (g_.max_pairs) {
      RunMaxPairsNchw();
    } else if (g_.nhwc) {
      RunNhwc();
    } else {
      RunNchw();
    }
    return absl::OkStatus();
  }

 private:
  void RunNchw() {
    const PoolGeometry& g = g_;
    const int64_t planes = g.batch * g.channels;
    for (int64_t p = 0; p < planes; ++p) {
      const T* plane = x_ + p * g.in_h * g.in_w;
      T* out = y_ + p * g.out_h * g.out_w;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const TapRange& r = g.rows[oh];
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const TapRange& c = g.cols[ow];
          const int64_t count = (r.end - r.begin) * (c.end - c.begin);
          C result;
          if (kind_ == PoolKind::kMax) {
            C m = LowestValue<C>();
            for (int64_t kh = r.begin; kh < r.end; ++kh) {
              const T* row = plane + (r.first + kh * g.dil_h) * g.in_w;
              for (int64_t kw = c.begin; kw < c.end; ++kw) {
                m = MaxNaN(m, Load(row + c.first + kw * g.dil_w));
              }
            }
            result = m;
          } else {
            Acc sum = 0;
            const bool l2 = kind_ == PoolKind::kL2;
            for (int64_t kh = r.begin; kh < r.end; ++kh) {
              const T* row = plane + (r.first + kh * g.dil_h) * g.in_w;
              for (int64_t kw = c.begin; kw < c.end; ++kw) {
                Acc v = static_cast<Acc>(Load(row + c.first + kw * g.dil_w));
                sum += l2 ? v * v : v;
              }
            }
            Acc value = count == 0 ? Acc(0)
                        : l2       ? std::sqrt(sum)
                                   : sum / static_cast<Acc>(count);
            result = static_cast<C>(value);
          }
          Store(out + oh * g.out_w + ow, result);
        }
      }
    }
  }

  // 2x2 max pooling at strides 2, in two steps the compiler vectorizes: the
  // larger of the two rows, then of each pair of columns. (The taps meet in
  // another order than in the general loop, so of two different NaNs in a
  // window another may win; any NaN still gives NaN.)
  void RunMaxPairsNchw() {
    const PoolGeometry& g = g_;
    const int64_t planes = g.batch * g.channels;
    const int64_t width = 2 * g.out_w;
    C* rows = max_.data();
    for (int64_t p = 0; p < planes; ++p) {
      const T* plane = x_ + p * g.in_h * g.in_w;
      T* out = y_ + p * g.out_h * g.out_w;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const T* r0 = plane + 2 * oh * g.in_w;
        const T* r1 = r0 + g.in_w;
        if constexpr (std::is_same_v<T, float>) {
          MaxPairsRow(r0, r1, out + oh * g.out_w, g.out_w);
          continue;
        }
        for (int64_t j = 0; j < width; ++j) {
          rows[j] = MaxNaN(Load(r0 + j), Load(r1 + j));
        }
        T* o = out + oh * g.out_w;
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          Store(o + ow, MaxNaN(rows[2 * ow], rows[2 * ow + 1]));
        }
      }
    }
  }

  // Channels are contiguous: reduce whole channel vectors tap by tap.
  void RunNhwc() {
    const PoolGeometry& g = g_;
    const int64_t ch = g.channels;
    Acc* acc = acc_.data();
    C* mx = max_.data();
    for (int64_t n = 0; n < g.batch; ++n) {
      const T* image = x_ + n * g.in_h * g.in_w * ch;
      T* out = y_ + n * g.out_h * g.out_w * ch;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const TapRange& r = g.rows[oh];
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const TapRange& c = g.cols[ow];
          const int64_t count = (r.end - r.begin) * (c.end - c.begin);
          T* dst = out + (oh * g.out_w + ow) * ch;
          if (kind_ == PoolKind::kMax) {
            std::fill(mx, mx + ch, LowestValue<C>());
            for (int64_t kh = r.begin; kh < r.end; ++kh) {
              const int64_t ih = r.first + kh * g.dil_h;
              for (int64_t kw = c.begin; kw < c.end; ++kw) {
                const T* src =
                    image + (ih * g.in_w + c.first + kw * g.dil_w) * ch;
                for (int64_t k = 0; k < ch; ++k) {
                  mx[k] = MaxNaN(mx[k], Load(src + k));
                }
              }
            }
            for (int64_t k = 0; k < ch; ++k) Store(dst + k, mx[k]);
          } else {
            std::fill(acc, acc + ch, Acc(0));
            const bool l2 = kind_ == PoolKind::kL2;
            for (int64_t kh = r.begin; kh < r.end; ++kh) {
              const int64_t ih = r.first + kh * g.dil_h;
              for (int64_t kw = c.begin; kw < c.end; ++kw) {
                const T* src =
                    image + (ih * g.in_w + c.first + kw * g.dil_w) * ch;
                if (l2) {
                  for (int64_t k = 0; k < ch; ++k) {
                    Acc v = static_cast<Acc>(Load(src + k));
                    acc[k] += v * v;
                  }
                } else {
                  for (int64_t k = 0; k < ch; ++k) {
                    acc[k] += static_cast<Acc>(Load(src + k));
                  }
                }
              }
            }
            for (int64_t k = 0; k < ch; ++k) {
              Acc value = count == 0 ? Acc(0)
                          : l2       ? std::sqrt(acc[k])
                                     : acc[k] / static_cast<Acc>(count);
              Store(dst + k, static_cast<C>(value));
            }
          }
        }
      }
    }
  }

  PoolKind kind_;
  PoolGeometry g_;
  const T* x_;
  T* y_;
  std::vector<Acc> acc_;  // nhwc scratch, one per channel
  std::vector<C> max_;    // nhwc: one per channel; 2x2 pairs: one row
};

}  // namespace

MadeKernel MakePoolKernel(const KernelIO& io) {
  if (auto kernel = TryDnnlPooling(io)) return kernel;
  const ir::Attrs& a = io.attrs();
  PoolKind kind;
  switch (io.node.op->kind) {
    case ir::OpKind::kAveragePool2d:
      kind = PoolKind::kAverage;
      break;
    case ir::OpKind::kL2Pool2d:
      kind = PoolKind::kL2;
      break;
    case ir::OpKind::kMaxPool2d:
      kind = PoolKind::kMax;
      break;
    default:
      return absl::InvalidArgumentError("not a pooling operation");
  }
  const ir::DType dtype = io.in_types[0]->dtype;
  const bool is_float =
      dtype == ir::DType::kFloat32 || dtype == ir::DType::kFloat16;
  const bool is_byte = dtype == ir::DType::kInt8 || dtype == ir::DType::kUint8;
  if (!is_float && !(kind == PoolKind::kMax && is_byte)) {
    return absl::UnimplementedError(
        StrCat("no kernel for ", ir::DTypeName(dtype)));
  }
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  PoolGeometry g;
  g.nhwc = a.GetString("layout", "nchw") == "nhwc";
  const int h_axis = g.nhwc ? 1 : 2, w_axis = g.nhwc ? 2 : 3;
  g.batch = in[0];
  g.channels = in[g.nhwc ? 3 : 1];
  g.in_h = in[h_axis];
  g.in_w = in[w_axis];
  g.out_h = out[h_axis];
  g.out_w = out[w_axis];
  std::vector<int64_t> window = a.GetInts("windowDimensions", {g.in_h, g.in_w});
  std::vector<int64_t> padding = a.GetInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = a.GetInts("strides", {1, 1});
  std::vector<int64_t> dilations = a.GetInts("dilations", {1, 1});
  if (window.size() != 2 || padding.size() != 4 || strides.size() != 2 ||
      dilations.size() != 2) {
    return absl::InvalidArgumentError("malformed pooling options");
  }
  g.dil_h = dilations[0];
  g.dil_w = dilations[1];
  g.rows = TapRanges(g.in_h, g.out_h, window[0], padding[0], strides[0],
                     dilations[0]);
  g.cols = TapRanges(g.in_w, g.out_w, window[1], padding[2], strides[1],
                     dilations[1]);
  g.max_pairs = kind == PoolKind::kMax && !g.nhwc && g.dil_h == 1 &&
                g.dil_w == 1 && PairRanges(g.rows) && PairRanges(g.cols);
  return Dispatch(dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T> || std::is_same_v<T, int8_t> ||
                  std::is_same_v<T, uint8_t>) {
      return std::make_unique<PoolKernel<T>>(
          kind, std::move(g), reinterpret_cast<const T*>(io.in[0]),
          reinterpret_cast<T*>(io.out[0]));
    } else {
      return absl::UnimplementedError("unsupported pooling type");
    }
  });
}

}  // namespace webnnm::backends::cpu
