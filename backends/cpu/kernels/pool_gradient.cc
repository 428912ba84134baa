// maxPool2dGradient (float32, nchw; engine/ops/max_pool2d_gradient.cc):
// each window's gradient to its first maximal tap, zeros elsewhere — one
// pass over the input, window by window, the taps compared with selects
// (random activations would mispredict branches). Fused with relu's
// gradient after it (compile_rewrites.cc): only a window whose winning tap is
// above zero passes its gradient on.
#include <algorithm>
#include <cmath>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/pairs_avx512.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {

namespace {

// argMax's rule between an earlier value `a` and a later `b`: whether b
// wins (larger, or the first NaN).
inline bool Wins(float b, float a) { return b > a || (b != b && a == a); }

// The windows of one row of 2x2 windows: `n` windows over rows a and b
// (taps a[2c], a[2c+1], b[2c], b[2c+1]); each window's gradient d[c] to its
// first maximal tap — a tournament (the first pair's winner against the
// second's; ties to the earlier), which picks the tap a scan in order
// would — the other taps 0.
void SpreadRowOfPairs(const float* a, const float* b, const float* d, float* oa,
                      float* ob, int64_t n, bool positive) {
  int64_t c = 0;
#if defined(__AVX512F__) && defined(__AVX512VL__)
  // Eight windows at a time: sixteen floats of each row, split into the
  // even and odd taps, compared with masks, interleaved back.
  const __m512i even = EvenLanes(), odd = OddLanes();
  const __m512i weave =
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  for (; c < n; c += 8) {
    const int64_t left = std::min<int64_t>(8, n - c);
    const __mmask8 lanes = WindowLanes(left);
    const __mmask16 pairs = PairLanes(left);
    const __m512 ra = _mm512_maskz_loadu_ps(pairs, a + 2 * c);
    const __m512 rb = _mm512_maskz_loadu_ps(pairs, b + 2 * c);
    const __m256 v0 = _mm512_castps512_ps256(_mm512_permutexvar_ps(even, ra));
    const __m256 v1 = _mm512_castps512_ps256(_mm512_permutexvar_ps(odd, ra));
    const __m256 v2 = _mm512_castps512_ps256(_mm512_permutexvar_ps(even, rb));
    const __m256 v3 = _mm512_castps512_ps256(_mm512_permutexvar_ps(odd, rb));
    auto wins = [](__m256 later, __m256 earlier) -> __mmask8 {
      return _mm256_cmp_ps_mask(later, earlier, _CMP_GT_OQ) |
             (_mm256_cmp_ps_mask(later, later, _CMP_UNORD_Q) &
              _mm256_cmp_ps_mask(earlier, earlier, _CMP_ORD_Q));
    };
    const __mmask8 w1 = wins(v1, v0), w3 = wins(v3, v2);
    const __m256 m01 = _mm256_mask_blend_ps(w1, v0, v1);
    const __m256 m23 = _mm256_mask_blend_ps(w3, v2, v3);
    const __mmask8 low = static_cast<__mmask8>(~wins(m23, m01));  // a row
    __m256 g = _mm256_maskz_loadu_ps(lanes, d + c);
    if (positive) {  // the winning tap above zero
      const __m256 best = _mm256_mask_blend_ps(low, m23, m01);
      g = _mm256_maskz_mov_ps(
          _mm256_cmp_ps_mask(best, _mm256_setzero_ps(), _CMP_GT_OQ), g);
    }
    const __m256 t0 = _mm256_maskz_mov_ps(low & ~w1, g);
    const __m256 t1 = _mm256_maskz_mov_ps(low & w1, g);
    const __m256 t2 = _mm256_maskz_mov_ps(~low & ~w3, g);
    const __m256 t3 = _mm256_maskz_mov_ps(~low & w3, g);
    _mm512_mask_storeu_ps(
        oa + 2 * c, pairs,
        _mm512_permutex2var_ps(_mm512_castps256_ps512(t0), weave,
                               _mm512_castps256_ps512(t1)));
    _mm512_mask_storeu_ps(
        ob + 2 * c, pairs,
        _mm512_permutex2var_ps(_mm512_castps256_ps512(t2), weave,
                               _mm512_castps256_ps512(t3)));
  }
#endif
  for (; c < n; ++c) {
    const float v0 = a[2 * c], v1 = a[2 * c + 1];
    const float v2 = b[2 * c], v3 = b[2 * c + 1];
    const bool w1 = Wins(v1, v0), w3 = Wins(v3, v2);
    const bool high = Wins(w3 ? v3 : v2, w1 ? v1 : v0);
    const int tap = high ? (w3 ? 3 : 2) : (w1 ? 1 : 0);
    const float best = high ? (w3 ? v3 : v2) : (w1 ? v1 : v0);
    const float g = !positive || best > 0.0f ? d[c] : 0.0f;
    oa[2 * c] = tap == 0 ? g : 0.0f;
    oa[2 * c + 1] = tap == 1 ? g : 0.0f;
    ob[2 * c] = tap == 2 ? g : 0.0f;
    ob[2 * c + 1] = tap == 3 ? g : 0.0f;
  }
}

}  // namespace

MadeKernel MakeMaxPoolGradientKernel(const KernelIO& io) {
  const std::vector<int64_t>& xs = io.in_types[0]->shape;
  const std::vector<int64_t>& ds = io.in_types[1]->shape;
  const std::vector<int64_t> window =
      io.attrs().GetInts("windowDimensions", {});
  if (io.in_types[0]->dtype != ir::DType::kFloat32 || xs.size() != 4 ||
      ds.size() != 4 || window.size() != 2) {
    return absl::InvalidArgumentError("malformed maxPool2dGradient");
  }
  const int64_t planes = xs[0] * xs[1], h = xs[2], w = xs[3];
  const int64_t oh = ds[2], ow = ds[3], kh = window[0], kw = window[1];
  const float* x = reinterpret_cast<const float*>(io.in[0]);
  const float* dy = reinterpret_cast<const float*>(io.in[1]);
  float* dx = reinterpret_cast<float*>(io.out[0]);
  // Fused (compile_rewrites.cc, PlanMaskedPoolGradients): where(x > 0, ., 0)
  // after it — a window's gradient reaches its tap only when the tap is above
  // 0.
  const bool positive = !io.fused.empty();
  if (io.fused.size() > 1 ||
      (positive && io.fused[0].node->op->kind != ir::OpKind::kWhere)) {
    return absl::InvalidArgumentError(
        "maxPool2dGradient fuses only relu's gradient");
  }
  if (kh == 2 && kw == 2) {
    // 2x2 windows (how networks pool): two input rows a row of windows,
    // every tap written (no pass of zeros first).
    return MakeFunctionKernel([=] {
      for (int64_t p = 0; p < planes; ++p) {
        const float* xp = x + p * h * w;
        const float* dp = dy + p * oh * ow;
        float* out = dx + p * h * w;
        for (int64_t r = 0; r < oh; ++r) {
          const float* a = xp + 2 * r * w;
          float* oa = out + 2 * r * w;
          SpreadRowOfPairs(a, a + w, dp + r * ow, oa, oa + w, ow, positive);
          std::fill(oa + 2 * ow, oa + w, 0.0f);  // columns no window reaches
          std::fill(oa + w + 2 * ow, oa + 2 * w, 0.0f);
        }
        std::fill(out + 2 * oh * w, out + h * w, 0.0f);  // and rows
      }
    });
  }
  return MakeFunctionKernel([=] {
    for (int64_t p = 0; p < planes; ++p) {
      const float* xp = x + p * h * w;
      const float* dp = dy + p * oh * ow;
      float* out = dx + p * h * w;
      std::fill(out, out + h * w, 0.0f);
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t c = 0; c < ow; ++c) {
          // argMax's rule, taps in row-major order: a larger value, or the
          // first NaN, takes the window.
          int64_t at = r * kh * w + c * kw;
          float best = xp[at];
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t row = (r * kh + i) * w + c * kw;
            for (int64_t j = i == 0 ? 1 : 0; j < kw; ++j) {
              const float v = xp[row + j];
              const bool better =
                  v > best || (std::isnan(v) && !std::isnan(best));
              best = better ? v : best;
              at = better ? row + j : at;
            }
          }
          out[at] = !positive || best > 0.0f ? dp[r * ow + c] : 0.0f;
        }
      }
    }
  });
}

}  // namespace webnnm::backends::cpu
