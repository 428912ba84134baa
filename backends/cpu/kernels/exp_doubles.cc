#include "backends/cpu/kernels/exp_doubles.h"

#include <cmath>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace webnnm::backends::cpu {
namespace {

#if defined(__AVX512F__)

// e^x for |x| <= 700 (other lanes: anything; the caller redoes them).
__m512d ExpPd(__m512d x) {
  // k = round(x / ln 2); r = x - k ln 2 with ln 2 = hi + lo, hi with 32
  // trailing zero bits (k hi exact for |k| < 2^20).
  const __m512d k = _mm512_roundscale_pd(
      _mm512_mul_pd(x, _mm512_set1_pd(1.4426950408889634074)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r =
      _mm512_fnmadd_pd(k, _mm512_set1_pd(6.93147180369123816490e-01), x);
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(1.90821492927058770002e-10), r);
  // Σ_{j <= 13} r^j / j!: |r| <= 0.3466, the first term left out
  // (r^14 / 14!) below 5e-18.
  constexpr double kInverseFactorials[14] = {
      1.0,
      1.0,
      1.0 / 2,
      1.0 / 6,
      1.0 / 24,
      1.0 / 120,
      1.0 / 720,
      1.0 / 5040,
      1.0 / 40320,
      1.0 / 362880,
      1.0 / 3628800,
      1.0 / 39916800,
      1.0 / 479001600,
      1.0 / 6227020800.0,
  };
  __m512d p = _mm512_set1_pd(kInverseFactorials[13]);
  for (int j = 12; j >= 0; --j) {
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(kInverseFactorials[j]));
  }
  return _mm512_scalef_pd(p, k);
}

#endif  // __AVX512F__

}  // namespace

void ExpDoubles(double* v, int64_t n) {
#if defined(__AVX512F__)
  const __m512d limit = _mm512_set1_pd(700.0);
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t left = n - i;
    const __mmask8 mask =
        left >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << left) - 1);
    const __m512d x = _mm512_maskz_loadu_pd(mask, v + i);
    // Not <= 700 in magnitude (NaNs included): std::exp.
    const __mmask8 odd =
        _mm512_mask_cmp_pd_mask(mask, _mm512_abs_pd(x), limit, _CMP_NLE_UQ);
    if (odd != 0) {
      alignas(64) double in[8];
      _mm512_store_pd(in, x);
      _mm512_mask_storeu_pd(v + i, mask, ExpPd(x));
      for (int j = 0; j < 8; ++j) {
        if ((odd >> j) & 1) v[i + j] = std::exp(in[j]);
      }
      continue;
    }
    _mm512_mask_storeu_pd(v + i, mask, ExpPd(x));
  }
#else
  for (int64_t i = 0; i < n; ++i) v[i] = std::exp(v[i]);
#endif
}

}  // namespace webnnm::backends::cpu
