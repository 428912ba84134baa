// argMin and argMax along an axis: the first index of the extreme value (a
// NaN counts as more extreme than any number: the first NaN wins).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/axis_split.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/exp_doubles.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/lanes_avx512.h"
#include "backends/cpu/kernels/short_rows.h"
#include "engine/base/float16.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

using K = ir::OpKind;

// argMax/argMin along `axis`: the first index of the extreme value; a NaN
// counts as more extreme than any number (the first NaN wins).
// Whether v replaces `best` (its first index kept on ties; a NaN wins
// over a number, the first NaN over later ones).
template <bool kMax, typename C>
inline bool Better(C v, C best) {
  bool better = kMax ? v > best : v < best;
  if constexpr (std::is_floating_point_v<C>) {
    better = better || (std::isnan(v) && !std::isnan(best));
  }
  return better;
}

template <typename T, typename I, bool kMax>
std::unique_ptr<Kernel> ArgReduce(const KernelIO& io, AxisSplit s) {
  using C = Compute<T>;
  const T* x = reinterpret_cast<const T*>(io.in[0]);
  I* y = reinterpret_cast<I*>(io.out[0]);
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (s.inner == 1 && s.length <= 64 && s.outer >= 8) {
      return MakeFunctionKernel(
          [=]() { ArgShortRows<kMax, I>(x, y, s.outer, s.length); });
    }
  }
#endif
  if (s.inner == 1) {
    // Along contiguous rows (a classifier's scores): selects instead of
    // branches, which random scores would mispredict half the time.
    return MakeFunctionKernel([=]() {
      for (int64_t o = 0; o < s.outer; ++o) {
        const T* row = x + o * s.length;
        C best = Load(row);
        I at = 0;
        for (int64_t k = 1; k < s.length; ++k) {
          const C v = Load(row + k);
          const bool better = Better<kMax>(v, best);
          best = better ? v : best;
          at = better ? static_cast<I>(k) : at;
        }
        y[o] = at;
      }
    });
  }
  std::vector<C> best(s.inner);
  return MakeFunctionKernel([=, best = std::move(best)]() mutable {
    for (int64_t o = 0; o < s.outer; ++o) {
      const T* base = x + o * s.length * s.inner;
      I* yo = y + o * s.inner;
      for (int64_t j = 0; j < s.inner; ++j) {
        best[j] = Load(base + j);
        yo[j] = 0;
      }
      for (int64_t k = 1; k < s.length; ++k) {
        const T* row = base + k * s.inner;
        for (int64_t j = 0; j < s.inner; ++j) {
          // Selects, not branches: the loop vectorizes along j (the
          // max-pooling gradient's windows, taps first).
          const C v = Load(row + j);
          const bool better = Better<kMax>(v, best[j]);
          best[j] = better ? v : best[j];
          yo[j] = better ? static_cast<I>(k) : yo[j];
        }
      }
    }
  });
}

template <typename T, typename I>
MadeKernel ArgReduceFor(const KernelIO& io, AxisSplit s) {
  if (io.node.op->kind == K::kArgMax) return ArgReduce<T, I, true>(io, s);
  return ArgReduce<T, I, false>(io, s);
}

}  // namespace

MadeKernel MakeArgReduceKernel(const KernelIO& io) {
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  const int64_t axis = io.attrs().GetInt("axis", -1);
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
    return absl::InvalidArgumentError(StrCat("axis ", axis, " out of range"));
  }
  AxisSplit s = SplitAt(shape, static_cast<int>(axis));
  const bool int64 = io.out_types[0]->dtype == ir::DType::kInt64;
  return Dispatch(io.in_types[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return int64 ? ArgReduceFor<T, int64_t>(io, s)
                 : ArgReduceFor<T, int32_t>(io, s);
  });
}

}  // namespace webnnm::backends::cpu
