// Element types of the CPU backend and dispatch over ir::DType.
//
// Tensors are stored as ir::RuntimeElementSize bytes per element: float16
// as its bit pattern (Half), int4/uint4 as one int8/uint8 per element.
// Kernels are templates over the storage type; Compute<T> is the type they
// compute in (float for Half) and Load/Store convert, rounding float results
// to float16 to nearest even.
#ifndef WEBNNM_BACKENDS_CPU_ELEMENT_H_
#define WEBNNM_BACKENDS_CPU_ELEMENT_H_

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
