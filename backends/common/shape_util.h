// Index arithmetic shared by the CPU kernels: row-major strides, and
// iteration over broadcast operands in long contiguous rows.
#ifndef WEBNNM_BACKENDS_COMMON_SHAPE_UTIL_H_
#define WEBNNM_BACKENDS_COMMON_SHAPE_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"

namespace webnnm::backends {

int64_t ElementCount(const std::vector<int64_t>& shape);

// Row-major strides of `shape`, in elements.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);

// The elements before `axis`, and the elements from `axis` on (one slab:
// the whole tensor for a single outer index).
int64_t Outer(const std::vector<int64_t>& shape, int axis);
int64_t Inner(const std::vector<int64_t>& shape, int axis);

// How quantizeLinear's and dequantizeLinear's parameters (scale,
// zeroPoint) of shape `param` map onto an input of shape `in`: right-
// aligned, each input dimension a multiple of the parameters' (a missing
// one is 1); InvalidArgument otherwise.
struct BlockLayout {
  std::vector<int64_t> shape;    // the input's
  std::vector<int64_t> block;    // input elements per parameter, per dim
  std::vector<int64_t> pstride;  // the parameters' stride, per input dim
  int64_t count = 1;
};
absl::StatusOr<BlockLayout> MakeBlockLayout(const std::vector<int64_t>& in,
                                            const std::vector<int64_t>& param);

// The strides with which an operand of `shape` is read while iterating over
// `out` (right-aligned numpy broadcasting: 0 where the operand repeats).
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& out);

// For each element of `out`, row-major, the offset of the element an
// operand read with `strides` (BroadcastStrides) gives it: a flat walk over
// a small broadcast (each offset must fit an int32).
std::vector<int32_t> BroadcastOffsets(const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& out);

// Iteration over `shape` for several operands with per-dimension strides,
// in rows along the last (merged) dimension:
//   plan.ForEachRow([&](const int64_t* offsets, int64_t n,
//                       const int64_t* inner) { ... });
// `offsets[k]` is operand k's element offset at the row's start and
// `inner[k]` its stride along the row (0 or the stride of the last dim).
// Adjacent dimensions are merged where every operand allows it.
class BroadcastPlan {
 public:
  BroadcastPlan(std::vector<int64_t> shape,
                std::vector<std::vector<int64_t>> strides);

  // Rows ForEachRow walks (0 when there are no elements, 1 for a scalar).
  int64_t rows() const {
    return count_ == 0 || shape_.empty() ? (count_ == 0 ? 0 : 1)
                                         : count_ / shape_.back();
  }

  template <typename F>
  void ForEachRow(F&& f) const {
    if (count_ == 0) return;
    const size_t k = strides_.size();
    // One or two merged dimensions and at most four operands (most plans:
    // element-wise operations and reductions of small tensors) walk
    // without the general index.
    if (k <= 4 && shape_.size() <= 2 && !shape_.empty()) {
      int64_t offsets[4] = {0, 0, 0, 0}, inner[4] = {0, 0, 0, 0},
              outer[4] = {0, 0, 0, 0};
      const size_t last = shape_.size() - 1;
      for (size_t j = 0; j < k; ++j) {
        inner[j] = strides_[j][last];
        if (last == 1) outer[j] = strides_[j][0];
      }
      const int64_t rows = last == 1 ? shape_[0] : 1;
      for (int64_t r = 0; r < rows; ++r) {
        f(static_cast<const int64_t*>(offsets), shape_[last],
          static_cast<const int64_t*>(inner));
        for (size_t j = 0; j < k; ++j) offsets[j] += outer[j];
      }
      return;
    }
    // Inline storage: no allocation per run for the usual ranks.
    using Small = absl::InlinedVector<int64_t, 8>;
    Small offsets(k, 0);
    if (shape_.empty()) {
      Small inner(k, 0);
      f(offsets.data(), 1, inner.data());
      return;
    }
    const int last = static_cast<int>(shape_.size()) - 1;
    Small inner(k);
    for (size_t j = 0; j < k; ++j) inner[j] = strides_[j][last];
    Small index(shape_.size(), 0);
    const int64_t rows = count_ / shape_[last];
    for (int64_t r = 0; r < rows; ++r) {
      f(offsets.data(), shape_[last], inner.data());
      // Advance the outer index (all but the last dimension).
      for (int d = last - 1; d >= 0; --d) {
        ++index[d];
        for (size_t j = 0; j < k; ++j) offsets[j] += strides_[j][d];
        if (index[d] < shape_[d]) break;
        for (size_t j = 0; j < k; ++j) offsets[j] -= strides_[j][d] * shape_[d];
        index[d] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> shape_;
  std::vector<std::vector<int64_t>> strides_;
  int64_t count_ = 0;
};

}  // namespace webnnm::backends

#endif  // WEBNNM_BACKENDS_COMMON_SHAPE_UTIL_H_
