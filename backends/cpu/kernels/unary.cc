// Element-wise operations with one operand: math, activations, predicates.
// C++ loops over the elements (vectorizable), computing float16 in float32
// and rounding each result; integer negation and abs wrap around.
#include <cmath>
#include <limits>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/exp_floats.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

// Negation that wraps around for integers (no signed overflow).
template <typename C>
C Negate(C x) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(U(0) - static_cast<U>(x));
  } else {
    return -x;
  }
}

// Applies `f` to every element: y[i] = f(x[i]).
template <typename In, typename Out, typename F>
std::unique_ptr<Kernel> Map(const KernelIO& io, F f) {
  const In* x = reinterpret_cast<const In*>(io.in[0]);
  Out* y = reinterpret_cast<Out*>(io.out[0]);
  int64_t n = ElementCount(io.out_types[0]->shape);
  return MakeFunctionKernel([=] {
    for (int64_t i = 0; i < n; ++i) Store(y + i, f(Load(x + i)));
  });
}

// y = f(x, y, n) over the whole tensor: float32's exp and sigmoid, the
// same bits as the scalar expressions (exp_floats.h), sixteen at a time.
std::unique_ptr<Kernel> MapFloats(const KernelIO& io,
                                  void (*f)(const float*, float*, int64_t)) {
  const float* x = reinterpret_cast<const float*>(io.in[0]);
  float* y = reinterpret_cast<float*>(io.out[0]);
  int64_t n = ElementCount(io.out_types[0]->shape);
  return MakeFunctionKernel([=] { f(x, y, n); });
}

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeFor(const KernelIO& io) {
  using C = Compute<T>;
  const ir::Attrs& a = io.attrs();
  switch (io.node.op->kind) {
    case ir::OpKind::kIdentity:
      return Map<T, T>(io, [](C x) { return x; });
    case ir::OpKind::kAbs:
      return Map<T, T>(io, [](C x) { return x < C(0) ? Negate(x) : x; });
    case ir::OpKind::kNeg:
      return Map<T, T>(io, [](C x) { return Negate(x); });
    case ir::OpKind::kSign:
      return Map<T, T>(io, [](C x) {
        if constexpr (std::is_floating_point_v<C>) {
          if (std::isnan(x)) return x;
        }
        return x > C(0) ? C(1) : (x < C(0) ? Negate(C(1)) : C(0));
      });
    case ir::OpKind::kRelu:
      return Map<T, T>(io, [](C x) { return x > C(0) ? x : C(0); });
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<C>) {
    switch (io.node.op->kind) {
      case ir::OpKind::kCeil:
        return Map<T, T>(io, [](C x) { return std::ceil(x); });
      case ir::OpKind::kFloor:
        return Map<T, T>(io, [](C x) { return std::floor(x); });
      case ir::OpKind::kRoundEven:
        return Map<T, T>(io, [](C x) { return std::nearbyint(x); });
      case ir::OpKind::kCos:
        return Map<T, T>(io, [](C x) { return std::cos(x); });
      case ir::OpKind::kSin:
        return Map<T, T>(io, [](C x) { return std::sin(x); });
      case ir::OpKind::kTan:
        return Map<T, T>(io, [](C x) { return std::tan(x); });
      case ir::OpKind::kErf:
        return Map<T, T>(io, [](C x) { return std::erf(x); });
      case ir::OpKind::kExp:
        if constexpr (std::is_same_v<T, float>) return MapFloats(io, ExpFloats);
        return Map<T, T>(io, [](C x) { return std::exp(x); });
      case ir::OpKind::kLog:
        return Map<T, T>(io, [](C x) { return std::log(x); });
      case ir::OpKind::kReciprocal:
        return Map<T, T>(io, [](C x) { return C(1) / x; });
      case ir::OpKind::kSqrt:
        return Map<T, T>(io, [](C x) { return std::sqrt(x); });
      case ir::OpKind::kSigmoid:
        if constexpr (std::is_same_v<T, float>) {
          return MapFloats(io, SigmoidFloats);
        }
        return Map<T, T>(io, [](C x) { return C(1) / (C(1) + std::exp(-x)); });
      case ir::OpKind::kTanh:
        return Map<T, T>(io, [](C x) { return std::tanh(x); });
      case ir::OpKind::kSoftplus:
        // ln(1 + e^x) without overflow for large x.
        return Map<T, T>(io, [](C x) {
          return x > C(0) ? x + std::log1p(std::exp(-x))
                          : std::log1p(std::exp(x));
        });
      case ir::OpKind::kSoftsign:
        return Map<T, T>(io, [](C x) { return x / (C(1) + std::fabs(x)); });
      case ir::OpKind::kGelu:
        // x·Φ(x) written with erfc: 1 + erf(x/√2) cancels for negative x.
        return Map<T, T>(io, [](C x) {
          return C(0.5) * x * std::erfc(-x * C(0.70710678118654752440));
        });
      case ir::OpKind::kHardSwish:
        return Map<T, T>(io, [](C x) {
          return x * std::fmax(C(0), std::fmin(C(6), x + C(3))) / C(6);
        });
      case ir::OpKind::kHardSigmoid: {
        C alpha = C(a.GetFloat("alpha", 0.2)),
          beta = C(a.GetFloat("beta", 0.5));
        return Map<T, T>(io, [=](C x) {
          return std::fmax(C(0), std::fmin(C(1), alpha * x + beta));
        });
      }
      case ir::OpKind::kElu: {
        C alpha = C(a.GetFloat("alpha", 1.0));
        return Map<T, T>(
            io, [=](C x) { return x >= C(0) ? x : alpha * std::expm1(x); });
      }
      case ir::OpKind::kLeakyRelu: {
        C alpha = C(a.GetFloat("alpha", 0.01));
        return Map<T, T>(io, [=](C x) { return x >= C(0) ? x : alpha * x; });
      }
      case ir::OpKind::kLinear: {
        C alpha = C(a.GetFloat("alpha", 1.0)),
          beta = C(a.GetFloat("beta", 0.0));
        return Map<T, T>(io, [=](C x) { return alpha * x + beta; });
      }
      case ir::OpKind::kIsNaN:
        return Map<T, uint8_t>(io, [](C x) { return uint8_t(std::isnan(x)); });
      case ir::OpKind::kIsInfinite:
        return Map<T, uint8_t>(io, [](C x) { return uint8_t(std::isinf(x)); });
      default:
        break;
    }
  }
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (io.node.op->kind == ir::OpKind::kLogicalNot) {
      return Map<T, T>(io, [](C x) { return uint8_t(x == 0); });
    }
  }
  return absl::UnimplementedError(
      StrCat("no kernel for ", ir::DTypeName(io.in_types[0]->dtype)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> MakeUnaryKernel(const KernelIO& io) {
  if (auto kernel = TryDnnlEltwise(io)) return kernel;
  return Dispatch(io.in_types[0]->dtype, [&](auto tag) {
    return MakeFor<typename decltype(tag)::type>(io);
  });
}

// clamp: bounds are cast to the input's type first (so, for integers,
// truncated and saturated); NaN inputs stay NaN.
absl::StatusOr<std::unique_ptr<Kernel>> MakeClampKernel(const KernelIO& io) {
  return Dispatch(io.in_types[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Compute<T>;
    double lo = io.attrs().GetFloat("minValue",
                                    -std::numeric_limits<double>::infinity());
    double hi = io.attrs().GetFloat("maxValue",
                                    std::numeric_limits<double>::infinity());
    if (std::isnan(lo)) lo = -std::numeric_limits<double>::infinity();
    if (std::isnan(hi)) hi = std::numeric_limits<double>::infinity();
    auto bound = [&](double v) -> C {
      if constexpr (std::is_floating_point_v<C>) {
        return static_cast<C>(v);
      } else {
        v = std::trunc(v);
        double min = static_cast<double>(std::numeric_limits<C>::lowest());
        double max = static_cast<double>(std::numeric_limits<C>::max());
        if (v <= min) return std::numeric_limits<C>::lowest();
        if (v >= max) return std::numeric_limits<C>::max();
        return static_cast<C>(v);
      }
    };
    C low = bound(lo), high = bound(hi);
    if constexpr (std::is_same_v<T, Half>) {
      // The bounds themselves are float16 values.
      low = HalfBitsToFloat(FloatToHalfBits(low));
      high = HalfBitsToFloat(FloatToHalfBits(high));
    }
    return absl::StatusOr<std::unique_ptr<Kernel>>(Map<T, T>(io, [=](C x) {
      C y = x < low ? low : x;
      return y > high ? high : y;
    }));
  });
}

}  // namespace webnnm::backends::cpu
