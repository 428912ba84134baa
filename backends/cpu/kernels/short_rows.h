// Kernels over many short contiguous float32 rows (a classifier's few
// classes, a batch's rows) with AVX-512, several rows at a time: lane r
// holds row r's k-th value, so that a row's work on eight or sixteen rows
// takes one vector operation — the same operations in the same order as
// the scalar loops they stand in for (softmax.cc, reduce.cc), so the same
// bits. Declared everywhere, defined only where the build has AVX-512 (the
// callers check __AVX512F__).
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_SHORT_ROWS_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_SHORT_ROWS_H_

#include <cstdint>

namespace webnnm::backends::cpu {

// How many doubles of scratch the rows need: rows rounded up to eight,
// times `length`.
inline int64_t ShortRowsScratch(int64_t rows, int64_t length) {
  return (rows + 7) / 8 * 8 * length;
}

// SmallSoftmax's y = e^(x - max) / sum along each row (max as the C
// library's fmax), in double, rounded once. `e`: ShortRowsScratch doubles.
void SoftmaxShortRows(const float* x, float* y, int64_t rows, int64_t length,
                      double* e);

// reduceLogSumExp of each row: y = max + ln(sum e^(x - max)), the maximum
// as reduce.cc's MaxOf (NaN wins), shifted by 0 when infinite or NaN; the
// exponentials and logarithms eight at a time (ExpDoubles, LogDoubles).
// `e`: ShortRowsScratch doubles; max, shift, sum: rows + 7 doubles each.
void LogSumExpShortRows(const float* x, float* y, int64_t rows, int64_t length,
                        double* e, double* max, double* shift, double* sum);

// argMax (kMax) or argMin of each row: the first index of the extreme
// value, a NaN more extreme than any number (the first NaN). I: int32_t or
// int64_t.
template <bool kMax, typename I>
void ArgShortRows(const float* x, I* y, int64_t rows, int64_t length);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_SHORT_ROWS_H_
