// Data movement on raw bytes, shared by the layout, slice, gather and
// scatter kernels: a copy between two strided views planned once at compile
// time, pattern fills, fixed-size element copies and index clamping. Work on
// bytes with the element size, so one code path serves every data type.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_STRIDED_COPY_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_STRIDED_COPY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/ir/dtype.h"

namespace webnnm::backends::cpu {

// Copies one element of S bytes (S a constant: the copy compiles to a move).
template <int S>
inline void CopyElement(std::byte* dst, const std::byte* src) {
  std::memcpy(dst, src, S);
}

// Calls f(std::integral_constant<int, S>{}) for an element size of 1, 2, 4
// or 8 bytes (every ir::RuntimeElementSize).
template <typename F>
decltype(auto) DispatchSize(int size, F&& f) {
  switch (size) {
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    default:
      return f(std::integral_constant<int, 1>{});
  }
}

// Fills `count` elements of `size` bytes at `dst` with the element at
// `value` (which must not lie inside the destination range).
void FillElements(std::byte* dst, int64_t count, const std::byte* value,
                  int size);

// y[i] = x[i * src_stride] for i < n, strides in bytes (may be 0 or
// negative), elements of `size` bytes.
void CopyRow(std::byte* dst, int64_t dst_stride, const std::byte* src,
             int64_t src_stride, int64_t n, int size);

// A copy between two strided views of the same iteration shape: element
// `index` of the shape moves from src + dot(index, src_strides) to
// dst + dot(index, dst_strides) (strides in elements; 0 repeats, negative
// walks backwards). Dimensions of size 1 are dropped and neighbours merged
// at construction; rows contiguous in both views are copied with memcpy, and
// a transposition (the source contiguous along one dimension, the
// destination along the last) runs in cache-sized square tiles. Run()
// allocates nothing. Not for concurrent use by several threads (it keeps
// its scratch index).
class StridedCopy {
 public:
  StridedCopy() = default;
  StridedCopy(const std::vector<int64_t>& shape,
              const std::vector<int64_t>& src_strides,
              const std::vector<int64_t>& dst_strides, int element_size);

  // `src` and `dst` point at the element of index 0 in each view.
  void Run(const std::byte* src, std::byte* dst) const;

 private:
  std::vector<int64_t> dims_;
  std::vector<int64_t> src_;  // bytes
  std::vector<int64_t> dst_;  // bytes
  void RunTiled(const std::byte* src, std::byte* dst) const;

  int64_t count_ = 0;
  int size_ = 1;
  int tiled_ = -1;  // the dimension the source is contiguous along, if tiled
  mutable std::vector<int64_t> index_;
};

// An index into a dimension of size n (n >= 1): negative values count from
// the end, and what is still out of range is clamped into [0, n).
template <typename I>
inline int64_t ClampIndex(I raw, int64_t n) {
  if constexpr (std::is_unsigned_v<I>) {
    uint64_t u = static_cast<uint64_t>(raw);
    return u >= static_cast<uint64_t>(n) ? n - 1 : static_cast<int64_t>(u);
  } else {
    int64_t v = static_cast<int64_t>(raw);
    if (v < 0) v += n;  // n > 0: cannot overflow
    return v < 0 ? 0 : (v >= n ? n - 1 : v);
  }
}

// Calls f(type_identity<I>{}) with the storage type of an index tensor
// (int32, uint32, int64, uint64); returns false for other types.
template <typename F>
bool DispatchIndex(ir::DType dtype, F&& f) {
  switch (dtype) {
    case ir::DType::kInt32:
      f(std::type_identity<int32_t>{});
      return true;
    case ir::DType::kUint32:
      f(std::type_identity<uint32_t>{});
      return true;
    case ir::DType::kInt64:
      f(std::type_identity<int64_t>{});
      return true;
    case ir::DType::kUint64:
      f(std::type_identity<uint64_t>{});
      return true;
    default:
      return false;
  }
}

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_STRIDED_COPY_H_
