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

// ln x for positive normal x (other lanes: anything; the caller redoes
// them).
__m512d LogPd(__m512d x) {
  const __m512d m =
      _mm512_getmant_pd(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_zero);
  // getexp is floor(log2 x); a mantissa halved into [0.75, 1) adds one.
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d k = _mm512_mask_add_pd(_mm512_getexp_pd(x),
                                       _mm512_cmp_pd_mask(m, one, _CMP_LT_OQ),
                                       _mm512_getexp_pd(x), one);
  const __m512d s = _mm512_div_pd(_mm512_sub_pd(m, one), _mm512_add_pd(m, one));
  const __m512d z = _mm512_mul_pd(s, s);
  // atanh(s) / s = Σ_{j <= 12} z^j / (2j + 1): z <= 0.04, the first term
  // left out (z^13 / 27) below 3e-20.
  __m512d p = _mm512_set1_pd(1.0 / 25);
  for (int j = 11; j >= 0; --j) {
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(1.0 / (2 * j + 1)));
  }
  // k ln 2 + 2 s p, the small parts first.
  const __m512d small =
      _mm512_fmadd_pd(k, _mm512_set1_pd(1.90821492927058770002e-10),
                      _mm512_mul_pd(_mm512_add_pd(s, s), p));
  return _mm512_fmadd_pd(k, _mm512_set1_pd(6.93147180369123816490e-01), small);
}

// v[i] = f(v[i]) for i < n, eight lanes at a time by `vector` (f on the
// lanes `usable` accepts), the others by `scalar` (the C library's f).
template <typename Usable, typename Vector, typename Scalar>
void EightAtATime(double* v, int64_t n, Usable usable, Vector vector,
                  Scalar scalar) {
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t left = n - i;
    const __mmask8 mask =
        left >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << left) - 1);
    const __m512d x = _mm512_maskz_loadu_pd(mask, v + i);
    _mm512_mask_storeu_pd(v + i, mask, vector(x));
    const __mmask8 odd = mask & ~usable(x);
    if (odd != 0) {
      alignas(64) double in[8];
      _mm512_store_pd(in, x);
      for (int j = 0; j < 8; ++j) {
        if ((odd >> j) & 1) v[i + j] = scalar(in[j]);
      }
    }
  }
}

#endif  // __AVX512F__

}  // namespace

void ExpDoubles(double* v, int64_t n) {
#if defined(__AVX512F__)
  // At most 700 in magnitude (not NaN).
  const __m512d limit = _mm512_set1_pd(700.0);
  EightAtATime(
      v, n,
      [&](__m512d x) {
        return _mm512_cmp_pd_mask(_mm512_abs_pd(x), limit, _CMP_LE_OQ);
      },
      ExpPd, [](double x) { return std::exp(x); });
#else
  for (int64_t i = 0; i < n; ++i) v[i] = std::exp(v[i]);
#endif
}

void LogDoubles(double* v, int64_t n) {
#if defined(__AVX512F__)
  // A positive normal number (not NaN).
  const __m512d smallest = _mm512_set1_pd(2.2250738585072014e-308);
  const __m512d infinity = _mm512_set1_pd(HUGE_VAL);
  EightAtATime(
      v, n,
      [&](__m512d x) {
        return _mm512_cmp_pd_mask(x, smallest, _CMP_GE_OQ) &
               _mm512_cmp_pd_mask(x, infinity, _CMP_LT_OQ);
      },
      LogPd, [](double x) { return std::log(x); });
#else
  for (int64_t i = 0; i < n; ++i) v[i] = std::log(v[i]);
#endif
}

}  // namespace webnnm::backends::cpu
