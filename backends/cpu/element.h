// Element types of the CPU backend and dispatch over ir::DType.
//
// Tensors are stored as ir::RuntimeElementSize bytes per element: float16
// as its bit pattern (Half), int4/uint4 as one int8/uint8 per element.
// Kernels are templates over the storage type; Compute<T> is the type they
// compute in (float for Half) and Load/Store convert, rounding float results
// to float16 to nearest even.
#ifndef WEBNNM_BACKENDS_CPU_ELEMENT_H_
#define WEBNNM_BACKENDS_CPU_ELEMENT_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine/ir/dtype.h"

namespace webnnm::backends::cpu {

// A float16 value in memory.
struct Half {
  uint16_t bits;
};
static_assert(sizeof(Half) == 2);

// float -> binary16, round to nearest even (overflow to infinity, NaN kept).
uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);

template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<Half> {
  using type = float;
};
template <typename T>
using Compute = typename ComputeType<T>::type;

template <typename T>
inline Compute<T> Load(const T* p) {
  return *p;
}
template <>
inline float Load<Half>(const Half* p) {
  return HalfBitsToFloat(p->bits);
}

template <typename T>
inline void Store(T* p, Compute<T> v) {
  *p = v;
}
template <>
inline void Store<Half>(Half* p, float v) {
  p->bits = FloatToHalfBits(v);
}

template <typename T>
inline constexpr bool kIsFloat =
    std::is_same_v<T, float> || std::is_same_v<T, Half>;

// `pick ? a : b` without a branch (bit masks), so that loops over
// unpredictable conditions — relu masks, max-pooling comparisons — neither
// mispredict nor stop the compiler from vectorizing.
template <typename T>
inline T Select(bool pick, T a, T b) {
  static_assert(
      std::is_trivially_copyable_v<T> &&
      (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<
          sizeof(T) == 2, uint16_t,
          std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  const U mask = static_cast<U>(U(0) - static_cast<U>(pick));
  return std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(a) & mask) |
                                         (std::bit_cast<U>(b) & ~mask)));
}

template <typename T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with the storage type of `dtype`.
template <typename F>
decltype(auto) Dispatch(ir::DType dtype, F&& f) {
  switch (dtype) {
    case ir::DType::kFloat32:
      return f(Tag<float>{});
    case ir::DType::kFloat16:
      return f(Tag<Half>{});
    case ir::DType::kInt32:
      return f(Tag<int32_t>{});
    case ir::DType::kUint32:
      return f(Tag<uint32_t>{});
    case ir::DType::kInt64:
      return f(Tag<int64_t>{});
    case ir::DType::kUint64:
      return f(Tag<uint64_t>{});
    case ir::DType::kInt8:
    case ir::DType::kInt4:
      return f(Tag<int8_t>{});
    case ir::DType::kUint8:
    case ir::DType::kUint4:
      return f(Tag<uint8_t>{});
  }
  return f(Tag<float>{});
}

// Calls f(Tag<T>{}) for float32 and float16 only (others: f(Tag<float>)).
template <typename F>
decltype(auto) DispatchFloat(ir::DType dtype, F&& f) {
  if (dtype == ir::DType::kFloat16) return f(Tag<Half>{});
  return f(Tag<float>{});
}

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_ELEMENT_H_
