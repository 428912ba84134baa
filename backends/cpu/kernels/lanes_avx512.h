// Small AVX-512 helpers the C++ kernels share: masks of the first lanes,
// the starts of short rows laid end to end (for gathers and scatters), and
// up to sixteen floats as two vectors of doubles and back.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_LANES_AVX512_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_LANES_AVX512_H_

#if defined(__AVX512F__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace webnnm::backends::cpu {

// The first `count` of 16 (or 8) lanes: all of them from 16 (8) on, none
// at 0 or below.
inline __mmask16 FirstLanes16(int64_t count) {
  count = std::clamp<int64_t>(count, 0, 16);
  return static_cast<__mmask16>((uint32_t{1} << count) - 1);
}
inline __mmask8 FirstLanes8(int64_t count) {
  count = std::clamp<int64_t>(count, 0, 8);
  return static_cast<__mmask8>((uint32_t{1} << count) - 1);
}

// Lane r: r * length, the start of row r of rows of `length` values.
inline __m512i RowStarts16(int64_t length) {
  return _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(static_cast<int>(length)));
}
inline __m256i RowStarts8(int64_t length) {
  return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                            _mm256_set1_epi32(static_cast<int>(length)));
}

// The first `count` (<= 16) floats at p as doubles: lanes 0-7 in lo, 8-15
// in hi, zeros past count.
inline void WidenFloats16(const float* p, int64_t count, __m512d& lo,
                          __m512d& hi) {
  const __m512 all = _mm512_maskz_loadu_ps(FirstLanes16(count), p);
  lo = _mm512_cvtps_pd(_mm512_castps512_ps256(all));
  hi = _mm512_cvtps_pd(
      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(all), 1)));
}

// The first `count` (<= 16) lanes of lo, hi rounded to floats at y.
inline void StoreNarrowed16(float* y, int64_t count, __m512d lo, __m512d hi) {
  _mm256_mask_storeu_ps(y, FirstLanes8(count), _mm512_cvtpd_ps(lo));
  if (count > 8) {
    _mm256_mask_storeu_ps(y + 8, FirstLanes8(count - 8), _mm512_cvtpd_ps(hi));
  }
}

}  // namespace webnnm::backends::cpu

#endif  // __AVX512F__
#endif  // WEBNNM_BACKENDS_CPU_KERNELS_LANES_AVX512_H_
