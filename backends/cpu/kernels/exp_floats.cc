#include "backends/cpu/kernels/exp_floats.h"

#include <cmath>
#include <cstring>

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include "backends/cpu/kernels/lanes_avx512.h"
// GCC 12 takes the undefined upper halves and pass-through operands inside
// its own AVX-512 intrinsics (casts, conversions, shifts) for uninitialized
// reads once they are inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace webnnm::backends::cpu {
namespace {

#if defined(__AVX512F__) && defined(__AVX512DQ__)

// The constants of glibc's expf (N = 32 table entries): 32/ln 2, the shift
// that rounds to an integer in the low bits, and the cubic's coefficients
// scaled for r in units of 1/32.
constexpr double kN = 32;
constexpr double kInverseLn2N = 0x1.71547652b82fep+0 * kN;
constexpr double kShift = 0x1.8p+52;
constexpr double kC0 = 0x1.c6af84b912394p-5 / kN / kN / kN;
constexpr double kC1 = 0x1.ebfce50fac4f3p-3 / kN / kN;
constexpr double kC2 = 0x1.62e42ff0c52d6p-1 / kN;

// Entry i: the bits of 2^(i/32) (correctly rounded) less i << 47, so that
// adding k << 47 to entry k mod 32 gives the bits of 2^(k/32).
struct Table {
  alignas(64) uint64_t bits[32];
  Table() {
    for (int i = 0; i < 32; ++i) {
      const double v =
          static_cast<double>(std::exp2(static_cast<long double>(i) / 32));
      uint64_t u;
      std::memcpy(&u, &v, sizeof u);
      bits[i] = u - (uint64_t(i) << 47);
    }
  }
};

const Table& TheTable() {
  static const Table table;
  return table;
}

// What the vector steps share: the table in four registers and the
// constants.
struct ExpConstants {
  ExpConstants()
      : t0(_mm512_load_pd(TheTable().bits)),
        t1(_mm512_load_pd(TheTable().bits + 8)),
        t2(_mm512_load_pd(TheTable().bits + 16)),
        t3(_mm512_load_pd(TheTable().bits + 24)) {}
  __m512d t0, t1, t2, t3;
};

// e^x of eight floats widened to double, as glibc's expf computes it.
inline __m256 ExpHalf(__m256 x, const ExpConstants& c) {
  const __m512d xd = _mm512_cvtps_pd(x);
  const __m512d inverse = _mm512_set1_pd(kInverseLn2N);
  const __m512d shift = _mm512_set1_pd(kShift);
  // k in the low bits of kd's encoding; r = x·32/ln 2 - k, each rounded once.
  __m512d kd = _mm512_fmadd_pd(inverse, xd, shift);
  const __m512i ki = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, shift);
  const __m512d r = _mm512_fmsub_pd(inverse, xd, kd);
  // 2^(k/32): entry k mod 32 (bit 4 picks the pair of registers), plus
  // k << 47 into the exponent.
  const __m512d low = _mm512_permutex2var_pd(c.t0, ki, c.t1);
  const __m512d high = _mm512_permutex2var_pd(c.t2, ki, c.t3);
  const __mmask8 upper = _mm512_test_epi64_mask(ki, _mm512_set1_epi64(16));
  const __m512i t = _mm512_add_epi64(
      _mm512_castpd_si512(_mm512_mask_blend_pd(upper, low, high)),
      _mm512_slli_epi64(ki, 47));
  const __m512d s = _mm512_castsi512_pd(t);
  const __m512d z =
      _mm512_fmadd_pd(_mm512_set1_pd(kC0), r, _mm512_set1_pd(kC1));
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(kC2), r, _mm512_set1_pd(1.0));
  y = _mm512_fmadd_pd(z, r2, y);
  return _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
}

// Lanes of magnitude 88 or more, infinities and NaNs: glibc's special
// cases (overflow, underflow, NaN propagation), left to std::exp.
inline __mmask16 SpecialLanes(__m512 x) {
  const __m512i top = _mm512_and_si512(
      _mm512_srli_epi32(_mm512_castps_si512(x), 20), _mm512_set1_epi32(0x7ff));
  return _mm512_cmpge_epu32_mask(top, _mm512_set1_epi32(0x42b));
}

__attribute__((noinline)) __m512 RedoSpecialLanes(__m512 x, __m512 y,
                                                  __mmask16 special) {
  alignas(64) float in[16], out[16];
  _mm512_store_ps(in, x);
  _mm512_store_ps(out, y);
  for (int j = 0; j < 16; ++j) {
    if ((special >> j) & 1) out[j] = std::exp(in[j]);
  }
  return _mm512_load_ps(out);
}

inline __m512 Exp16(__m512 x, const ExpConstants& c) {
  const __m256 lo = ExpHalf(_mm512_castps512_ps256(x), c);
  const __m256 hi =
      ExpHalf(_mm512_castps512_ps256(_mm512_shuffle_f32x4(x, x, 0xee)), c);
  const __m512 y = _mm512_castpd_ps(_mm512_insertf64x4(
      _mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1));
  const __mmask16 special = SpecialLanes(x);
  return special == 0 ? y : RedoSpecialLanes(x, y, special);
}

#endif  // __AVX512F__ && __AVX512DQ__

}  // namespace

#if defined(__AVX512F__) && defined(__AVX512DQ__)

__m512 ExpLanes16(__m512 x) { return Exp16(x, ExpConstants()); }

void ExpFloats(const float* x, float* y, int64_t n) {
  const ExpConstants c;
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = FirstLanes16(n - i);
    _mm512_mask_storeu_ps(y + i, k, Exp16(_mm512_maskz_loadu_ps(k, x + i), c));
  }
}

void SigmoidFloats(const float* x, float* y, int64_t n) {
  const ExpConstants c;
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = FirstLanes16(n - i);
    // -x flips the sign bit (NaNs included), as the scalar negation does.
    const __m512 e = Exp16(
        _mm512_xor_ps(_mm512_maskz_loadu_ps(k, x + i), _mm512_set1_ps(-0.0f)),
        c);
    _mm512_mask_storeu_ps(y + i, k, _mm512_div_ps(one, _mm512_add_ps(one, e)));
  }
}

#else  // no AVX-512

void ExpFloats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

void SigmoidFloats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + std::exp(-x[i]));
}

#endif

}  // namespace webnnm::backends::cpu
