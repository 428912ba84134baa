// cast: every data type to every data type.
//
//  - to float32/float16: round to nearest even (integers convert exactly
//    where they can; float16 overflows to infinity);
//  - float to integer: truncate toward zero, saturate to the target's range
//    (int4 [-8, 7], uint4 [0, 15]), NaN -> 0;
//  - integer to integer: wrap around (keep the low bits; int4/uint4 keep the
//    low 4 bits, int4 sign-extended).
// int4/uint4 inputs are read from their low 4 bits.
#include <cmath>
#include <limits>
#include <type_traits>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/factories.h"

namespace webnnm::backends::cpu {
namespace {

// The int4/uint4 value stored in the low 4 bits of a byte.
inline int8_t Int4(int v) {
  return static_cast<int8_t>(
      static_cast<int8_t>(static_cast<uint8_t>(v) << 4) >> 4);
}
inline uint8_t Uint4(int v) { return static_cast<uint8_t>(v) & 0x0F; }

template <typename In, typename Out, typename F>
std::unique_ptr<Kernel> Map(const KernelIO& io, F f) {
  const In* x = reinterpret_cast<const In*>(io.in[0]);
  Out* y = reinterpret_cast<Out*>(io.out[0]);
  const int64_t n = ElementCount(io.out_types[0]->shape);
  return MakeFunctionKernel([=] {
    for (int64_t i = 0; i < n; ++i) Store(y + i, f(Load(x + i)));
  });
}

// Runs `convert` after reading int4/uint4 inputs from their low 4 bits.
template <typename In, typename Out, typename F>
std::unique_ptr<Kernel> FromSource(const KernelIO& io, F convert) {
  using CI = Compute<In>;
  const ir::DType from = io.in_types[0]->dtype;
  if constexpr (std::is_same_v<In, int8_t>) {
    if (from == ir::DType::kInt4) {
      return Map<In, Out>(io, [=](CI v) { return convert(CI(Int4(v))); });
    }
  } else if constexpr (std::is_same_v<In, uint8_t>) {
    if (from == ir::DType::kUint4) {
      return Map<In, Out>(io, [=](CI v) { return convert(CI(Uint4(v))); });
    }
  }
  return Map<In, Out>(io, convert);
}

template <typename In, typename Out>
MadeKernel CastFor(const KernelIO& io) {
  using CI = Compute<In>;
  using CO = Compute<Out>;
  const ir::DType to = io.out_types[0]->dtype;
  if constexpr (std::is_floating_point_v<CO>) {
    // Integers to float: exact below 2^24; above, correctly rounded (and
    // float16 overflows to infinity from the float value).
    return FromSource<In, Out>(io, [](CI v) { return static_cast<CO>(v); });
  } else if constexpr (std::is_floating_point_v<CI>) {
    CO lo = std::numeric_limits<CO>::lowest();
    CO hi = std::numeric_limits<CO>::max();
    if (to == ir::DType::kInt4) lo = CO(-8), hi = CO(7);
    if (to == ir::DType::kUint4) lo = CO(0), hi = CO(15);
    const double low = static_cast<double>(lo);
    const double high = static_cast<double>(hi);  // 2^63, 2^64 when rounded
    return Map<In, Out>(io, [=](CI v) -> CO {
      if (std::isnan(v)) return CO(0);
      const double t = std::trunc(static_cast<double>(v));
      if (t <= low) return lo;
      if (t >= high) return hi;
      return static_cast<CO>(t);
    });
  } else {
    // Integer to integer: modular conversion (well-defined in C++20).
    if constexpr (std::is_same_v<Out, int8_t>) {
      if (to == ir::DType::kInt4) {
        return FromSource<In, Out>(io, [](CI v) {
          return Int4(static_cast<int>(static_cast<uint8_t>(v)));
        });
      }
    } else if constexpr (std::is_same_v<Out, uint8_t>) {
      if (to == ir::DType::kUint4) {
        return FromSource<In, Out>(io, [](CI v) {
          return Uint4(static_cast<int>(static_cast<uint8_t>(v)));
        });
      }
    }
    return FromSource<In, Out>(io, [](CI v) { return static_cast<CO>(v); });
  }
}

}  // namespace

MadeKernel MakeCastKernel(const KernelIO& io) {
  return Dispatch(io.in_types[0]->dtype, [&](auto in) {
    return Dispatch(io.out_types[0]->dtype, [&](auto out) {
      return CastFor<typename decltype(in)::type, typename decltype(out)::type>(
          io);
    });
  });
}

}  // namespace webnnm::backends::cpu
