#include "backends/cpu/kernels/short_rows.h"

#include <cmath>
#include <limits>

#include "backends/cpu/kernels/exp_doubles.h"
#include "backends/cpu/kernels/lanes_avx512.h"

namespace webnnm::backends::cpu {

#if defined(__AVX512F__)

namespace {

// Rows of block b (eight rows) gathered column by column into `e` as
// doubles: value k of the block's rows at e + (b * length + k) * 8.
void GatherColumns(const float* x, int64_t rows, int64_t length, double* e) {
  const __m256i starts = RowStarts8(length);
  for (int64_t b = 0; b * 8 < rows; ++b) {
    const __mmask8 live = FirstLanes8(rows - b * 8);
    for (int64_t k = 0; k < length; ++k) {
      _mm512_storeu_pd(
          e + (b * length + k) * 8,
          _mm512_cvtps_pd(_mm256_mmask_i32gather_ps(
              _mm256_setzero_ps(), live, starts, x + b * 8 * length + k, 4)));
    }
  }
}

// Block b's values less `shift` (its eight rows' shifts).
void Subtract(double* block, int64_t length, __m512d shift) {
  for (int64_t k = 0; k < length; ++k) {
    _mm512_storeu_pd(block + 8 * k,
                     _mm512_sub_pd(_mm512_loadu_pd(block + 8 * k), shift));
  }
}

// Block b's eight row sums, from 0 in column order.
__m512d RowSums(const double* block, int64_t length) {
  __m512d total = _mm512_setzero_pd();
  for (int64_t k = 0; k < length; ++k) {
    total = _mm512_add_pd(total, _mm512_loadu_pd(block + 8 * k));
  }
  return total;
}

// fmax on eight lanes: the larger; the other operand when one is NaN.
__m512d FMax(__m512d a, __m512d b) {
  __m512d r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_GT_OQ), b, a);
  return _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(b, b, _CMP_UNORD_Q), a);
}

}  // namespace

void SoftmaxShortRows(const float* x, float* y, int64_t rows, int64_t length,
                      double* e) {
  GatherColumns(x, rows, length, e);
  const int64_t blocks = (rows + 7) / 8;
  for (int64_t b = 0; b < blocks; ++b) {
    double* block = e + b * length * 8;
    __m512d max = _mm512_loadu_pd(block);
    for (int64_t k = 1; k < length; ++k) {
      max = FMax(max, _mm512_loadu_pd(block + 8 * k));
    }
    Subtract(block, length, max);
  }
  ExpDoubles(e, blocks * 8 * length);
  const __m256i starts = RowStarts8(length);
  for (int64_t b = 0; b < blocks; ++b) {
    const double* block = e + b * length * 8;
    const __m512d total = RowSums(block, length);
    const __mmask8 live = FirstLanes8(rows - b * 8);
    for (int64_t k = 0; k < length; ++k) {
      _mm256_mask_i32scatter_ps(
          y + b * 8 * length + k, live, starts,
          _mm512_cvtpd_ps(_mm512_div_pd(_mm512_loadu_pd(block + 8 * k), total)),
          4);
    }
  }
}

void LogSumExpShortRows(const float* x, float* y, int64_t rows, int64_t length,
                        double* e, double* max, double* shift, double* sum) {
  GatherColumns(x, rows, length, e);
  const __m512d infinity =
      _mm512_set1_pd(std::numeric_limits<double>::infinity());
  const int64_t blocks = (rows + 7) / 8;
  for (int64_t b = 0; b < blocks; ++b) {
    double* block = e + b * length * 8;
    __m512d m = _mm512_set1_pd(-std::numeric_limits<double>::infinity());
    for (int64_t k = 0; k < length; ++k) {
      // MaxOf(m, v): v if NaN, else the larger (m on ties).
      const __m512d v = _mm512_loadu_pd(block + 8 * k);
      m = _mm512_mask_mov_pd(m, _mm512_cmp_pd_mask(m, v, _CMP_LT_OQ), v);
      m = _mm512_mask_mov_pd(m, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), v);
    }
    // An infinite or NaN maximum shifts by 0.
    const __m512d sh = _mm512_maskz_mov_pd(
        _mm512_cmp_pd_mask(_mm512_abs_pd(m), infinity, _CMP_LT_OQ), m);
    Subtract(block, length, sh);
    _mm512_storeu_pd(max + b * 8, m);
    _mm512_storeu_pd(shift + b * 8, sh);
  }
  ExpDoubles(e, blocks * 8 * length);
  for (int64_t b = 0; b < blocks; ++b) {
    _mm512_storeu_pd(sum + b * 8, RowSums(e + b * length * 8, length));
  }
  LogDoubles(sum, rows);
  for (int64_t j = 0; j < rows; ++j) {
    y[j] = static_cast<float>(std::isnan(max[j]) ? max[j] : shift[j] + sum[j]);
  }
}

template <bool kMax, typename I>
void ArgShortRows(const float* x, I* y, int64_t rows, int64_t length) {
  const __m512i starts = RowStarts16(length);
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t o = 0; o < rows; o += 16) {
    const __mmask16 live = FirstLanes16(rows - o);
    const float* base = x + o * length;
    __m512 best = _mm512_mask_i32gather_ps(zero, live, starts, base, 4);
    __m512i at = _mm512_setzero_si512();
    for (int64_t k = 1; k < length; ++k) {
      const __m512 v =
          _mm512_mask_i32gather_ps(zero, live, starts, base + k, 4);
      // reduce.cc's Better: strictly more extreme, or a NaN over a number.
      const __mmask16 better =
          _mm512_cmp_ps_mask(v, best, kMax ? _CMP_GT_OQ : _CMP_LT_OQ) |
          (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) &
           _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q));
      best = _mm512_mask_mov_ps(best, better, v);
      at = _mm512_mask_mov_epi32(at, better,
                                 _mm512_set1_epi32(static_cast<int>(k)));
    }
    if constexpr (sizeof(I) == 4) {
      _mm512_mask_storeu_epi32(y + o, live, at);
    } else {
      _mm512_mask_storeu_epi64(
          y + o, static_cast<__mmask8>(live),
          _mm512_cvtepi32_epi64(_mm512_castsi512_si256(at)));
      _mm512_mask_storeu_epi64(
          y + o + 8, static_cast<__mmask8>(live >> 8),
          _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(at, 1)));
    }
  }
}

template void ArgShortRows<true, int32_t>(const float*, int32_t*, int64_t,
                                          int64_t);
template void ArgShortRows<true, int64_t>(const float*, int64_t*, int64_t,
                                          int64_t);
template void ArgShortRows<false, int32_t>(const float*, int32_t*, int64_t,
                                           int64_t);
template void ArgShortRows<false, int64_t>(const float*, int64_t*, int64_t,
                                           int64_t);

#endif  // __AVX512F__

}  // namespace webnnm::backends::cpu
