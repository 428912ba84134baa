// e^x and ln x over arrays of doubles: the small softmax and log-sum-exp
// loops (a loss's few classes per row) spent most of their time in one
// std::exp or std::log call per element.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_EXP_DOUBLES_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_EXP_DOUBLES_H_

#include <cstdint>

namespace webnnm::backends::cpu {

// v[i] = e^v[i] for i < n. With AVX-512, eight at a time: x = k ln 2 + r
// (|r| <= ln 2 / 2, ln 2 in two parts), e^r by its Taylor polynomial to
// r^13 with fused multiply-adds, times 2^k (vscalefpd) — within about one
// unit in the last place of std::exp, so floats rounded from either agree
// but for values within ~2^-28 of a float's rounding boundary. Lanes with
// |x| > 700, infinities and NaNs take std::exp. Without AVX-512: std::exp.
void ExpDoubles(double* v, int64_t n);

// v[i] = ln v[i] for i < n. With AVX-512, eight at a time: x = 2^k m
// (m in [0.75, 1.5): vgetexppd, vgetmantpd), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.2, by its series to s^25, plus k ln 2
// (ln 2 in two parts) — within about one unit in the last place of
// std::log, so floats rounded from either agree but for values within
// ~2^-28 of a float's rounding boundary. Lanes that are not positive
// normal numbers (zeros, subnormals, negatives, infinities, NaNs) take
// std::log. Without AVX-512: std::log.
void LogDoubles(double* v, int64_t n);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_EXP_DOUBLES_H_
