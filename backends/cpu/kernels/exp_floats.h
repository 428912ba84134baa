// e^x over arrays of floats, the same bits as the C library's expf. The
// kernels called std::exp once per element (the loss's exp, sigmoids of
// small tensors, the fused element-wise kernel's codes); glibc's expf
// (the algorithm of Arm's optimized routines: x·32/ln 2 = k + r, 2^(k/32)
// from a table of 32, a cubic in r, all in double with fused multiply-adds
// on machines that have them) vectorizes lane for lane, eight doubles at a
// time. The result is checked against std::exp on every float whose
// magnitude is below 88 (exp_floats_test.cc samples them; the search that
// found the fused multiply-adds glibc's FMA build uses went through all of
// them); lanes of magnitude 88 or more, infinities and NaNs take std::exp
// itself. Without AVX-512 (the plain build), std::exp throughout.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_EXP_FLOATS_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_EXP_FLOATS_H_

#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#endif

namespace webnnm::backends::cpu {

// y[i] = std::exp(x[i]) for i < n (x and y may be the same array).
void ExpFloats(const float* x, float* y, int64_t n);

// y[i] = 1.0f / (1.0f + std::exp(-x[i])) for i < n, the logistic sigmoid
// as the element-wise kernels write it (x and y may be the same array).
void SigmoidFloats(const float* x, float* y, int64_t n);

#if defined(__AVX512F__) && defined(__AVX512DQ__)
// std::exp of each of 16 lanes.
__m512 ExpLanes16(__m512 x);
#endif

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_EXP_FLOATS_H_
