// quantizeLinear and dequantizeLinear, with scale and zeroPoint broadcast
// blockwise: right-aligned, each input dimension a multiple of the scale's,
// block = input dimension / scale dimension (a missing dimension is 1).
//
//   quantizeLinear:   y = clamp(roundEven(x / scale) + zeroPoint) to the
//                     zero point type's range (int4 [-8, 7], uint4 [0, 15]);
//                     x / scale is computed in double; a NaN quotient gives
//                     the zero point.
//   dequantizeLinear: y = (x - zeroPoint) * scale, the difference exact in
//                     int64 and the product rounded once to the result type.
// int4/uint4 values are read from their low 4 bits (sign-extended for int4).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/float16.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

// Calls f(offset, n, p) for each run of n input elements from `offset` that
// share the parameters at index p. `index` has one entry per dimension.
template <typename F>
void ForEachBlock(const BlockLayout& l, std::vector<int64_t>& index, F&& f) {
  const int rank = static_cast<int>(l.shape.size());
  if (rank == 0) {
    f(int64_t{0}, int64_t{1}, int64_t{0});
    return;
  }
  const int last = rank - 1;
  const int64_t n = l.shape[last], b = l.block[last], ps = l.pstride[last];
  const int64_t rows = l.count / n;
  std::fill(index.begin(), index.end(), 0);
  int64_t offset = 0;
  for (int64_t r = 0; r < rows; ++r, offset += n) {
    int64_t base = 0;
    for (int d = 0; d < last; ++d) base += index[d] / l.block[d] * l.pstride[d];
    for (int64_t k = 0, at = 0; at < n; ++k, at += b) {
      f(offset + at, b, base + k * ps);
    }
    for (int d = last - 1; d >= 0; --d) {
      if (++index[d] < l.shape[d]) break;
      index[d] = 0;
    }
  }
}

// A quantized value of type `dtype` stored as Q, as an int64.
template <typename Q>
int64_t Quantized(Q v, ir::DType dtype) {
  if (dtype == ir::DType::kInt4) {
    return static_cast<int8_t>(
        static_cast<int8_t>(static_cast<uint8_t>(v) << 4) >> 4);
  }
  if (dtype == ir::DType::kUint4) return static_cast<uint8_t>(v) & 0x0F;
  return static_cast<int64_t>(v);
}

template <typename T>
void PutDouble(T* p, double v) {
  if constexpr (std::is_same_v<T, Half>) {
    p->bits = DoubleToHalf(v);
  } else {
    *p = static_cast<T>(v);
  }
}

// The storage types of the quantized data types (int8 and int4 share int8_t).
template <typename Q>
inline constexpr bool kQuantizedStorage = std::is_integral_v<Q> &&
                                          sizeof(Q) <= 4;

}  // namespace

MadeKernel MakeQuantizeKernel(const KernelIO& io) {
  if (!io.has(1) || !io.has(2)) {
    return absl::InvalidArgumentError(
        "quantizeLinear needs scale and zeroPoint");
  }
  absl::StatusOr<BlockLayout> layout =
      MakeBlockLayout(io.in_types[0]->shape, io.in_types[1]->shape);
  if (!layout.ok()) return layout.status();
  const ir::DType qtype = io.in_types[2]->dtype;
  return DispatchFloat(io.in_types[0]->dtype, [&](auto ftag) {
    using T = typename decltype(ftag)::type;
    return Dispatch(qtype, [&](auto qtag) -> MadeKernel {
      using Q = typename decltype(qtag)::type;
      if constexpr (!kQuantizedStorage<Q>) {
        return absl::UnimplementedError(
            StrCat("no kernel for ", ir::DTypeName(qtype)));
      } else {
        double lo = static_cast<double>(std::numeric_limits<Q>::lowest());
        double hi = static_cast<double>(std::numeric_limits<Q>::max());
        if (qtype == ir::DType::kInt4) lo = -8, hi = 7;
        if (qtype == ir::DType::kUint4) lo = 0, hi = 15;
        const T* x = reinterpret_cast<const T*>(io.in[0]);
        const T* scale = reinterpret_cast<const T*>(io.in[1]);
        const Q* zero = reinterpret_cast<const Q*>(io.in[2]);
        Q* y = reinterpret_cast<Q*>(io.out[0]);
        std::vector<int64_t> index(layout->shape.size());
        return MakeFunctionKernel(
            [=, l = *layout, index = std::move(index)]() mutable {
              ForEachBlock(l, index, [&](int64_t at, int64_t n, int64_t p) {
                const double s = static_cast<double>(Load(scale + p));
                const double z = static_cast<double>(Quantized(zero[p], qtype));
                for (int64_t i = 0; i < n; ++i) {
                  const double q = std::nearbyint(double(Load(x + at + i)) / s);
                  double v = std::isnan(q) ? z : q + z;
                  v = v < lo ? lo : (v > hi ? hi : v);
                  y[at + i] = static_cast<Q>(v);
                }
              });
            });
      }
    });
  });
}

MadeKernel MakeDequantizeKernel(const KernelIO& io) {
  if (!io.has(1) || !io.has(2)) {
    return absl::InvalidArgumentError(
        "dequantizeLinear needs scale and zeroPoint");
  }
  absl::StatusOr<BlockLayout> layout =
      MakeBlockLayout(io.in_types[0]->shape, io.in_types[1]->shape);
  if (!layout.ok()) return layout.status();
  const ir::DType qtype = io.in_types[0]->dtype;
  return DispatchFloat(io.in_types[1]->dtype, [&](auto ftag) {
    using T = typename decltype(ftag)::type;
    return Dispatch(qtype, [&](auto qtag) -> MadeKernel {
      using Q = typename decltype(qtag)::type;
      if constexpr (!kQuantizedStorage<Q>) {
        return absl::UnimplementedError(
            StrCat("no kernel for ", ir::DTypeName(qtype)));
      } else {
        const Q* x = reinterpret_cast<const Q*>(io.in[0]);
        const T* scale = reinterpret_cast<const T*>(io.in[1]);
        const Q* zero = reinterpret_cast<const Q*>(io.in[2]);
        T* y = reinterpret_cast<T*>(io.out[0]);
        const bool nibble =
            qtype == ir::DType::kInt4 || qtype == ir::DType::kUint4;
        std::vector<int64_t> index(layout->shape.size());
        return MakeFunctionKernel([=, l = *layout,
                                   index = std::move(index)]() mutable {
          ForEachBlock(l, index, [&](int64_t at, int64_t n, int64_t p) {
            const double s = static_cast<double>(Load(scale + p));
            const int64_t z = Quantized(zero[p], qtype);
            if (nibble) {
              for (int64_t i = 0; i < n; ++i) {
                PutDouble(
                    y + at + i,
                    static_cast<double>(Quantized(x[at + i], qtype) - z) * s);
              }
            } else {
              for (int64_t i = 0; i < n; ++i) {
                PutDouble(y + at + i, static_cast<double>(
                                          static_cast<int64_t>(x[at + i]) - z) *
                                          s);
              }
            }
          });
        });
      }
    });
  });
}

}  // namespace webnnm::backends::cpu
