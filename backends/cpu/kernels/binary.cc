// Element-wise operations with broadcasting operands: arithmetic (integers
// wrap around), comparisons and logic (uint8 results), prelu and where.
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

// The type integer arithmetic wraps in (floats: themselves).
template <typename C, bool = std::is_integral_v<C>>
struct WideType {
  using type = C;
};
template <typename C>
struct WideType<C, true> {
  using type = std::make_unsigned_t<C>;
};
template <typename C>
using Wide = typename WideType<C>::type;

// Integer arithmetic in the unsigned type wraps around without UB.
template <typename C>
C Add(C a, C b) {
  return static_cast<C>(static_cast<Wide<C>>(a) + static_cast<Wide<C>>(b));
}
template <typename C>
C Sub(C a, C b) {
  return static_cast<C>(static_cast<Wide<C>>(a) - static_cast<Wide<C>>(b));
}
template <typename C>
C Mul(C a, C b) {
  if constexpr (std::is_integral_v<C> && sizeof(C) < sizeof(int)) {
    return static_cast<C>(static_cast<unsigned>(a) * static_cast<unsigned>(b));
  } else {
    return static_cast<C>(static_cast<Wide<C>>(a) * static_cast<Wide<C>>(b));
  }
}
template <typename C>
C Div(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) return 0;  // WebNN leaves it undefined; never trap
    if constexpr (std::is_signed_v<C>) {
      if (a == std::numeric_limits<C>::lowest() && b == C(-1)) return a;
    }
    return a / b;  // truncates toward zero
  } else {
    return a / b;
  }
}
template <typename C>
C Pow(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if constexpr (std::is_signed_v<C>) {
      if (b < 0) return a == 1 ? 1 : a == C(-1) ? ((b & 1) ? C(-1) : 1) : 0;
    }
    C result = 1, base = a;
    for (Wide<C> e = static_cast<Wide<C>>(b); e; e >>= 1) {
      if (e & 1) result = Mul(result, base);
      base = Mul(base, base);
    }
    return result;
  } else {
    return std::pow(a, b);
  }
}
template <typename C>
C Max(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<C>::quiet_NaN();
  }
  return a < b ? b : a;
}
template <typename C>
C Min(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<C>::quiet_NaN();
  }
  return b < a ? b : a;
}

// Broadcasts up to this many result elements run as one flat loop.
constexpr int64_t kFlatBroadcastElements = 4096;

// Runs y = f(a, b) over the broadcast shape of the result.
template <typename A, typename Y, typename F>
std::unique_ptr<Kernel> Zip(const KernelIO& io, F f) {
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  BroadcastPlan plan(
      out, {BroadcastStrides(io.in_types[0]->shape, out),
            BroadcastStrides(io.in_types[1]->shape, out), Strides(out)});
  const A* a = reinterpret_cast<const A*>(io.in[0]);
  const A* b = reinterpret_cast<const A*>(io.in[1]);
  Y* y = reinterpret_cast<Y*>(io.out[0]);
  const int64_t count = ElementCount(out);
  if (plan.rows() > 1 && count <= kFlatBroadcastElements) {
    // A small broadcast (a bias added to a batch's rows): one flat loop,
    // a broadcast operand read through its element offsets, instead of
    // many short rows.
    const bool a_whole = io.in_types[0]->shape == out;
    const bool b_whole = io.in_types[1]->shape == out;
    std::vector<int32_t> ia, ib;
    if (!a_whole)
      ia = BroadcastOffsets(BroadcastStrides(io.in_types[0]->shape, out), out);
    if (!b_whole)
      ib = BroadcastOffsets(BroadcastStrides(io.in_types[1]->shape, out), out);
    if (a_whole) {
      return MakeFunctionKernel([=, ib = std::move(ib)] {
        for (int64_t i = 0; i < count; ++i)
          Store(y + i, f(Load(a + i), Load(b + ib[i])));
      });
    }
    if (b_whole) {
      return MakeFunctionKernel([=, ia = std::move(ia)] {
        for (int64_t i = 0; i < count; ++i)
          Store(y + i, f(Load(a + ia[i]), Load(b + i)));
      });
    }
    return MakeFunctionKernel([=, ia = std::move(ia), ib = std::move(ib)] {
      for (int64_t i = 0; i < count; ++i)
        Store(y + i, f(Load(a + ia[i]), Load(b + ib[i])));
    });
  }
  return MakeFunctionKernel([=] {
    plan.ForEachRow([&](const int64_t* o, int64_t n, const int64_t* s) {
      const A* pa = a + o[0];
      const A* pb = b + o[1];
      Y* py = y + o[2];
      if (s[0] == 1 && s[1] == 1) {
        for (int64_t i = 0; i < n; ++i)
          Store(py + i, f(Load(pa + i), Load(pb + i)));
      } else if (s[0] == 1 && s[1] == 0) {
        auto vb = Load(pb);
        for (int64_t i = 0; i < n; ++i) Store(py + i, f(Load(pa + i), vb));
      } else if (s[0] == 0 && s[1] == 1) {
        auto va = Load(pa);
        for (int64_t i = 0; i < n; ++i) Store(py + i, f(va, Load(pb + i)));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          Store(py + i, f(Load(pa + i * s[0]), Load(pb + i * s[1])));
        }
      }
    });
  });
}

template <typename T>
MadeKernel MakeFor(const KernelIO& io) {
  using C = Compute<T>;
  using K = ir::OpKind;
  auto cmp = [&](auto f) { return Zip<T, uint8_t>(io, f); };
  switch (io.node.op->kind) {
    case K::kAdd:
      return Zip<T, T>(io, [](C a, C b) { return Add(a, b); });
    case K::kSub:
      return Zip<T, T>(io, [](C a, C b) { return Sub(a, b); });
    case K::kMul:
      return Zip<T, T>(io, [](C a, C b) { return Mul(a, b); });
    case K::kDiv:
      return Zip<T, T>(io, [](C a, C b) { return Div(a, b); });
    case K::kMax:
      return Zip<T, T>(io, [](C a, C b) { return Max(a, b); });
    case K::kMin:
      return Zip<T, T>(io, [](C a, C b) { return Min(a, b); });
    case K::kPow:
      return Zip<T, T>(io, [](C a, C b) { return Pow(a, b); });
    case K::kPrelu:
      return Zip<T, T>(
          io, [](C x, C slope) { return x >= C(0) ? x : Mul(slope, x); });
    case K::kEqual:
      return cmp([](C a, C b) { return uint8_t(a == b); });
    case K::kNotEqual:
      return cmp([](C a, C b) { return uint8_t(a != b); });
    case K::kGreater:
      return cmp([](C a, C b) { return uint8_t(a > b); });
    case K::kGreaterOrEqual:
      return cmp([](C a, C b) { return uint8_t(a >= b); });
    case K::kLesser:
      return cmp([](C a, C b) { return uint8_t(a < b); });
    case K::kLesserOrEqual:
      return cmp([](C a, C b) { return uint8_t(a <= b); });
    case K::kLogicalAnd:
      return cmp([](C a, C b) { return uint8_t((a != C(0)) & (b != C(0))); });
    case K::kLogicalOr:
      return cmp([](C a, C b) { return uint8_t((a != C(0)) | (b != C(0))); });
    case K::kLogicalXor:
      return cmp([](C a, C b) { return uint8_t((a != C(0)) != (b != C(0))); });
    default:
      return absl::UnimplementedError("not a binary operation");
  }
}

}  // namespace

MadeKernel MakeBinaryKernel(const KernelIO& io) {
  if (auto kernel = TryDnnlBinary(io)) return kernel;
  return Dispatch(io.in_types[0]->dtype, [&](auto tag) {
    return MakeFor<typename decltype(tag)::type>(io);
  });
}

namespace {

// where over a full condition, each side either full or (kTOne, kFOne) one
// value: a branchless loop the compiler vectorizes.
template <typename T, bool kTOne, bool kFOne>
MadeKernel WhereContiguous(const uint8_t* c, const T* t, const T* f, T* y,
                           int64_t count) {
  return MakeFunctionKernel([=] {
    for (int64_t i = 0; i < count; ++i) {
      y[i] = Select(c[i] != 0, t[kTOne ? 0 : i], f[kFOne ? 0 : i]);
    }
  });
}

// where over a full condition, one side repeating every `period` elements
// (its shape the result's trailing dimensions: a pooling gradient's dy
// spread over its window's taps) and the other one value.
template <typename T, bool kTRepeats>
MadeKernel WhereRepeated(const uint8_t* c, const T* t, const T* f, T* y,
                         int64_t count, int64_t period) {
  return MakeFunctionKernel([=] {
    for (int64_t base = 0; base < count; base += period) {
      const uint8_t* cb = c + base;
      T* yb = y + base;
      for (int64_t i = 0; i < period; ++i) {
        yb[i] = Select(cb[i] != 0, t[kTRepeats ? i : 0], f[kTRepeats ? 0 : i]);
      }
    }
  });
}

// The elements after which an operand of `shape` repeats when broadcast to
// `out` (its leading 1s dropped, the rest `out`'s trailing dimensions), or
// 0 when it broadcasts otherwise.
int64_t RepeatPeriod(const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& out) {
  const size_t lead = out.size() - shape.size();
  size_t d = 0;
  while (d < shape.size() && shape[d] == 1) ++d;
  for (size_t j = d; j < shape.size(); ++j) {
    if (shape[j] != out[lead + j]) return 0;
  }
  return ElementCount(shape);
}

}  // namespace

// where(condition, t, f): three-way broadcast.
MadeKernel MakeWhereKernel(const KernelIO& io) {
  return Dispatch(io.in_types[1]->dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    const std::vector<int64_t>& out = io.out_types[0]->shape;
    BroadcastPlan plan(
        out, {BroadcastStrides(io.in_types[0]->shape, out),
              BroadcastStrides(io.in_types[1]->shape, out),
              BroadcastStrides(io.in_types[2]->shape, out), Strides(out)});
    const uint8_t* c = reinterpret_cast<const uint8_t*>(io.in[0]);
    const T* t = reinterpret_cast<const T*>(io.in[1]);
    const T* f = reinterpret_cast<const T*>(io.in[2]);
    T* y = reinterpret_cast<T*>(io.out[0]);
    const int64_t count = ElementCount(out);
    const bool full =
        io.in_types[1]->shape == out && io.in_types[2]->shape == out;
    if (full && ElementCount(io.in_types[0]->shape) == 1) {
      // One condition for every element (a training step's "apply the
      // update?"): a copy of one side.
      return MakeFunctionKernel([=] {
        const T* from = c[0] ? t : f;
        if (from != y) std::memmove(y, from, count * sizeof(T));
      });
    }
    // A full condition with each side full or one value (a relu's or a
    // max-pooling's gradient is where(mask, dy, 0)): contiguous loops.
    auto one = [&](int k) { return io.in_types[k]->shape != out; };
    if (io.in_types[0]->shape == out &&
        (!one(1) || ElementCount(io.in_types[1]->shape) == 1) &&
        (!one(2) || ElementCount(io.in_types[2]->shape) == 1)) {
      const int pair = (one(1) ? 2 : 0) + (one(2) ? 1 : 0);
      return pair == 0   ? WhereContiguous<T, false, false>(c, t, f, y, count)
             : pair == 1 ? WhereContiguous<T, false, true>(c, t, f, y, count)
             : pair == 2 ? WhereContiguous<T, true, false>(c, t, f, y, count)
                         : WhereContiguous<T, true, true>(c, t, f, y, count);
    }
    if (io.in_types[0]->shape == out && count > 0) {
      const int64_t pt = RepeatPeriod(io.in_types[1]->shape, out);
      const int64_t pf = RepeatPeriod(io.in_types[2]->shape, out);
      if (pt > 1 && count % pt == 0 &&
          ElementCount(io.in_types[2]->shape) == 1) {
        return WhereRepeated<T, true>(c, t, f, y, count, pt);
      }
      if (pf > 1 && count % pf == 0 &&
          ElementCount(io.in_types[1]->shape) == 1) {
        return WhereRepeated<T, false>(c, t, f, y, count, pf);
      }
    }
    return MakeFunctionKernel([=] {
      plan.ForEachRow([&](const int64_t* o, int64_t n, const int64_t* s) {
        for (int64_t i = 0; i < n; ++i) {
          y[o[3] + i] = Select(c[o[0] + i * s[0]] != 0, t[o[1] + i * s[1]],
                               f[o[2] + i * s[2]]);
        }
      });
    });
  });
}

}  // namespace webnnm::backends::cpu
