// Index vectors for the 2x2 pooling kernels (pool.cc, pool_gradient.cc):
// sixteen floats of an image row are eight windows' column pairs; these
// pick the pairs' even or odd members into the low eight lanes (and again
// into the high eight, unused).
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_PAIRS_AVX512_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_PAIRS_AVX512_H_

#if defined(__AVX512F__)
#include <immintrin.h>

#include <cstdint>

namespace webnnm::backends::cpu {

inline __m512i EvenLanes() {
  return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12,
                           14);
}

inline __m512i OddLanes() {
  return _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 1, 3, 5, 7, 9, 11, 13,
                           15);
}

// The masks of `left` (<= 8) windows: their lanes of eight, and their
// sixteen floats' lanes.
inline __mmask8 WindowLanes(int64_t left) {
  return static_cast<__mmask8>((1u << left) - 1);
}
inline __mmask16 PairLanes(int64_t left) {
  return static_cast<__mmask16>((1u << (2 * left)) - 1);
}

}  // namespace webnnm::backends::cpu

#endif  // __AVX512F__
#endif  // WEBNNM_BACKENDS_CPU_KERNELS_PAIRS_AVX512_H_
