// Reductions: reduceL1, reduceL2, reduceLogSum, reduceLogSumExp, reduceMax,
// reduceMean, reduceMin, reduceProduct, reduceSum, reduceSumSquare; and
// cumulativeSum (argMin and argMax: arg_reduce.cc).
//
// The input is walked once in long contiguous rows (BroadcastPlan over the
// input with stride 0 for the reduced axes of an accumulator the size of the
// result). Floating-point values (float16 included) accumulate in double and
// are rounded once into the result's type; integer sums and products wrap
// around in the unsigned type of their width. Reducing over no axes reduces
// each element on its own (reduceL1 gives |x|, reduceSumSquare x^2, ...).
// Accumulators are allocated when the kernel is made, never in Run().
// Reductions along trailing axes (each result a contiguous row) or leading
// ones (each a column) fold without the plan's walk, in the same order;
// short float32 rows (a classifier's classes: argMax, log-sum-exp;
// short_rows.h) and float32 sums into a few columns (bias gradients) run
// on AVX-512, eight or sixteen rows at a time, the same operations in the
// same order.
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

// What sums and products accumulate in: double for floats, the unsigned
// integer of the same width for integers (wrap-around without UB).
template <typename T, bool = kIsFloat<T>>
struct AccumulatorType {
  using type = double;
};
template <typename T>
struct AccumulatorType<T, false> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Acc = typename AccumulatorType<T>::type;

// Wrapping product (unsigned types narrower than int are promoted to int,
// whose product could overflow; compute those in unsigned int).
template <typename A>
A Times(A a, A b) {
  if constexpr (std::is_integral_v<A> && sizeof(A) < sizeof(unsigned)) {
    return static_cast<A>(static_cast<unsigned>(a) * static_cast<unsigned>(b));
  } else {
    return static_cast<A>(a * b);
  }
}

// Stores an accumulated value into the result's type: doubles round once
// (float16 directly from double), integers wrap.
template <typename T, typename V>
void Put(T* p, V v) {
  if constexpr (std::is_same_v<T, Half>) {
    if constexpr (std::is_same_v<V, double>) {
      p->bits = DoubleToHalf(v);
    } else {
      p->bits = FloatToHalfBits(static_cast<float>(v));
    }
  } else {
    *p = static_cast<T>(v);
  }
}

// An input value as an accumulator value: |x| and x^2 wrap for integers.
template <typename T>
Acc<T> ToAcc(Compute<T> x) {
  return static_cast<Acc<T>>(x);
}
template <typename T>
Acc<T> AbsAcc(Compute<T> x) {
  Acc<T> a = static_cast<Acc<T>>(x);
  if constexpr (kIsFloat<T>) {
    return std::fabs(a);
  } else if constexpr (std::is_signed_v<T>) {
    return x < 0 ? static_cast<Acc<T>>(Acc<T>(0) - a) : a;
  } else {
    return a;
  }
}

// NaN-propagating maximum and minimum (`a` is the running value).
template <typename C>
C MaxOf(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(b)) return b;
  }
  return a < b ? b : a;
}
template <typename C>
C MinOf(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(b)) return b;
  }
  return b < a ? b : a;
}

// The layout of one reduction: the plan walks the input (operand 0) and the
// accumulator (operand 1, stride 0 along reduced axes) together.
struct ReduceLayout {
  BroadcastPlan plan;
  int64_t out_count;  // accumulator / result elements
  int64_t per_out;    // input elements reduced into each result
};

ReduceLayout MakeLayout(const std::vector<int64_t>& in,
                        const std::vector<bool>& reduced) {
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> acc_strides(rank, 0);
  int64_t stride = 1, per_out = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (reduced[d]) {
      per_out *= in[d];
    } else {
      acc_strides[d] = stride;
      stride *= in[d];
    }
  }
  return ReduceLayout{BroadcastPlan(in, {Strides(in), acc_strides}), stride,
                      per_out};
}

// Folds map(x) over the contiguous row px[0, n) into `a`: a row of at least
// 2 * Lanes elements in Lanes independent partial results (starting from
// `init`, combined into `a` in order, then the rest), so that the loop
// vectorizes; a shorter row in order.
template <int64_t Lanes, typename T, typename A, typename Map, typename Combine>
A FoldLanes(const T* px, int64_t n, A a, A init, Map map, Combine combine) {
  int64_t i = 0;
  if (n >= 2 * Lanes) {
    A lane[Lanes];
    for (int64_t l = 0; l < Lanes; ++l) lane[l] = init;
    for (; i + Lanes <= n; i += Lanes) {
      for (int64_t l = 0; l < Lanes; ++l) {
        lane[l] = combine(lane[l], map(Load(px + i + l)));
      }
    }
    for (int64_t l = 0; l < Lanes; ++l) a = combine(a, lane[l]);
  }
  for (; i < n; ++i) a = combine(a, map(Load(px + i)));
  return a;
}

// FoldLanes with 8 lanes (one vector of doubles), or 32 (four, whose
// additions overlap) for rows of kLongRow elements or more: 8 lanes wait on
// each addition's latency in a long row (the sum of squares of the MLP's
// 100,352 gradients 10.1 µs, 5.1 with 32), 32 cost more than they save in
// short ones (the CNN's bias gradient, rows of 121: 19 µs, 37 with 32).
// The order is a function of n alone.
inline constexpr int64_t kLongRow = 256;
template <typename T, typename A, typename Map, typename Combine>
A FoldRow(const T* px, int64_t n, A a, A init, Map map, Combine combine) {
  return n >= kLongRow ? FoldLanes<32>(px, n, a, init, map, combine)
                       : FoldLanes<8>(px, n, a, init, map, combine);
}

// acc[j] = combine(acc[j], map(x)) over every input element x reducing to j
// (a contiguous row that folds into one accumulator: FoldRow).
template <typename T, typename A, typename Map, typename Combine>
void Accumulate(const BroadcastPlan& plan, const T* x, A* acc, A init, Map map,
                Combine combine) {
  plan.ForEachRow([&](const int64_t* o, int64_t n, const int64_t* s) {
    const T* px = x + o[0];
    A* pa = acc + o[1];
    if (s[0] == 1 && s[1] == 0) {
      *pa = FoldRow(px, n, *pa, init, map, combine);
    } else if (s[0] == 1 && s[1] == 1) {
      for (int64_t i = 0; i < n; ++i) pa[i] = combine(pa[i], map(Load(px + i)));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        pa[i * s[1]] = combine(pa[i * s[1]], map(Load(px + i * s[0])));
      }
    }
  });
}

// A reduction with accumulator type A: y[j] = finish(fold of map(x)).
template <typename T, typename A, typename Map, typename Combine,
          typename Finish>
std::unique_ptr<Kernel> Reduction(const KernelIO& io,
                                  const std::vector<bool>& reduced, A init,
                                  Map map, Combine combine, Finish finish) {
  ReduceLayout layout = MakeLayout(io.in_types[0]->shape, reduced);
  const T* x = reinterpret_cast<const T*>(io.in[0]);
  T* y = reinterpret_cast<T*>(io.out[0]);
  const int64_t count = layout.out_count, per_out = layout.per_out;
  // The same folds without the plan's walk: the reduced axes last (each
  // result one contiguous row, as Accumulate folds it) or first (each
  // result a column, summed from the first row down).
  if (std::is_sorted(reduced.begin(), reduced.end())) {
    return MakeFunctionKernel([=]() {
      for (int64_t j = 0; j < count; ++j) {
        Put(y + j,
            finish(FoldRow(x + j * per_out, per_out, init, init, map, combine),
                   per_out));
      }
    });
  }
  if (std::is_sorted(reduced.rbegin(), reduced.rend()) && count <= 64) {
    return MakeFunctionKernel([=]() {
      A acc[64];
      for (int64_t j = 0; j < count; ++j) acc[j] = init;
      for (int64_t r = 0; r < per_out; ++r) {
        const T* row = x + r * count;
        for (int64_t j = 0; j < count; ++j) {
          acc[j] = combine(acc[j], map(Load(row + j)));
        }
      }
      for (int64_t j = 0; j < count; ++j) Put(y + j, finish(acc[j], per_out));
    });
  }
  std::vector<A> acc(layout.out_count);
  return MakeFunctionKernel(
      [=, plan = std::move(layout.plan), acc = std::move(acc)]() mutable {
        std::fill(acc.begin(), acc.end(), init);
        Accumulate(plan, x, acc.data(), init, map, combine);
        for (int64_t j = 0; j < count; ++j) Put(y + j, finish(acc[j], per_out));
      });
}

// reduceLogSumExp: max + ln(sum e^(x - max)), the maximum found first.
template <typename T>
std::unique_ptr<Kernel> LogSumExp(const KernelIO& io,
                                  const std::vector<bool>& reduced) {
  ReduceLayout layout = MakeLayout(io.in_types[0]->shape, reduced);
  const T* x = reinterpret_cast<const T*>(io.in[0]);
  T* y = reinterpret_cast<T*>(io.out[0]);
  const int64_t count = layout.out_count;
  // The reduced axes last (a loss's log-sum-exp over the classes): each
  // result is one contiguous row, summed in the same order as below.
  const bool rows = std::is_sorted(reduced.begin(), reduced.end());
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (rows && layout.per_out >= 1 && layout.per_out <= 16 && count >= 8) {
      const int64_t n = layout.per_out;
      std::vector<double> e(ShortRowsScratch(count, n)), max(count + 7),
          shift(count + 7), sum(count + 7);
      return MakeFunctionKernel([=]() mutable {
        LogSumExpShortRows(x, y, count, n, e.data(), max.data(), shift.data(),
                           sum.data());
      });
    }
  }
#endif
  if (rows) {
    const int64_t n = layout.per_out;
    // Rows' differences from their shifts exponentiated together
    // (ExpDoubles) in blocks of up to 512, then summed in order: several
    // short rows a block, or one long row in several.
    constexpr int64_t kBlock = 512;
    const int64_t block =
        std::max<int64_t>(1, kBlock / std::max<int64_t>(1, n));
    std::vector<double> e(std::min(std::min(count, block) * n, kBlock));
    std::vector<double> max(block), shift(block);
    auto row_shift = [x, n](int64_t j, double& m, double& sh) {
      const T* row = x + j * n;
      m = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < n; ++i) m = MaxOf(m, double(Load(row + i)));
      sh = std::isfinite(m) ? m : 0.0;
    };
    auto put = [y](int64_t j, double m, double sh, double sum) {
      Put(y + j, std::isnan(m) ? m : sh + std::log(sum));
    };
    return MakeFunctionKernel([=]() mutable {
      if (n > kBlock) {  // long rows
        for (int64_t j = 0; j < count; ++j) {
          row_shift(j, max[0], shift[0]);
          const T* row = x + j * n;
          double sum = 0.0;
          for (int64_t at = 0; at < n; at += kBlock) {
            const int64_t len = std::min(kBlock, n - at);
            for (int64_t i = 0; i < len; ++i) {
              e[i] = double(Load(row + at + i)) - shift[0];
            }
            ExpDoubles(e.data(), len);
            for (int64_t i = 0; i < len; ++i) sum += e[i];
          }
          put(j, max[0], shift[0], sum);
        }
        return;
      }
      for (int64_t first = 0; first < count; first += block) {
        const int64_t rows_here = std::min(block, count - first);
        for (int64_t j = 0; j < rows_here; ++j) {
          row_shift(first + j, max[j], shift[j]);
          const T* row = x + (first + j) * n;
          for (int64_t i = 0; i < n; ++i) {
            e[j * n + i] = double(Load(row + i)) - shift[j];
          }
        }
        ExpDoubles(e.data(), rows_here * n);
        for (int64_t j = 0; j < rows_here; ++j) {
          double sum = 0.0;
          for (int64_t i = 0; i < n; ++i) sum += e[j * n + i];
          put(first + j, max[j], shift[j], sum);
        }
      }
    });
  }
  std::vector<double> max(count), sum(count);
  return MakeFunctionKernel([=, plan = std::move(layout.plan),
                             max = std::move(max),
                             sum = std::move(sum)]() mutable {
    std::fill(max.begin(), max.end(), -std::numeric_limits<double>::infinity());
    std::fill(sum.begin(), sum.end(), 0.0);
    Accumulate(
        plan, x, max.data(), -std::numeric_limits<double>::infinity(),
        [](Compute<T> v) { return double(v); },
        [](double a, double b) { return MaxOf(a, b); });
    // An infinite maximum shifts by 0: the sum is then +inf (some x is
    // +inf) or 0 (every x is -inf, and ln 0 = -inf). NaN stays NaN.
    for (double& m : max) {
      if (!std::isfinite(m)) m = std::isnan(m) ? m : 0.0;
    }
    const double* shift = max.data();
    plan.ForEachRow([&](const int64_t* o, int64_t n, const int64_t* s) {
      const T* px = x + o[0];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = o[1] + i * s[1];
        sum[j] += std::exp(double(Load(px + i * s[0])) - shift[j]);
      }
    });
    for (int64_t j = 0; j < count; ++j) {
      Put(y + j, std::isnan(max[j]) ? max[j] : max[j] + std::log(sum[j]));
    }
  });
}

#if defined(__AVX512F__)
// reduceSum of float32 over leading axes into at most 8 results (a small
// layer's bias gradient): the results one vector of doubles, the rows
// added in order — the sums of Reduction's column loop, in one vector
// operation a row. nullptr for other layouts.
std::unique_ptr<Kernel> SumColumns(const KernelIO& io,
                                   const std::vector<bool>& reduced) {
  if (!std::is_sorted(reduced.rbegin(), reduced.rend())) return nullptr;
  const ReduceLayout layout = MakeLayout(io.in_types[0]->shape, reduced);
  const int64_t count = layout.out_count, rows = layout.per_out;
  // (One result: the rows path, Reduction's FoldRow, sums in lanes.)
  if (count < 2 || count > 8 || rows < 2) return nullptr;
  const float* x = reinterpret_cast<const float*>(io.in[0]);
  float* y = reinterpret_cast<float*>(io.out[0]);
  const __mmask8 lanes = FirstLanes8(count);
  return MakeFunctionKernel([=]() {
    __m512d acc = _mm512_setzero_pd();
    for (int64_t r = 0; r < rows; ++r) {
      acc = _mm512_add_pd(
          acc, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(lanes, x + r * count)));
    }
    _mm256_mask_storeu_ps(y, lanes, _mm512_cvtpd_ps(acc));
  });
}
#endif

template <typename T>
MadeKernel ReduceFor(const KernelIO& io, const std::vector<bool>& reduced) {
  using C = Compute<T>;
  using A = Acc<T>;
  auto keep = [](A a, int64_t) { return a; };
  auto add = [](A a, A b) { return static_cast<A>(a + b); };
  auto to_acc = [](C v) { return ToAcc<T>(v); };
  switch (io.node.op->kind) {
    case K::kReduceMax:
      return Reduction<T, C>(
          io, reduced,
          std::is_floating_point_v<C> ? -std::numeric_limits<C>::infinity()
                                      : std::numeric_limits<C>::lowest(),
          [](C v) { return v; }, [](C a, C b) { return MaxOf(a, b); },
          [](C a, int64_t) { return a; });
    case K::kReduceMin:
      return Reduction<T, C>(
          io, reduced,
          std::is_floating_point_v<C> ? std::numeric_limits<C>::infinity()
                                      : std::numeric_limits<C>::max(),
          [](C v) { return v; }, [](C a, C b) { return MinOf(a, b); },
          [](C a, int64_t) { return a; });
    case K::kReduceSum:
#if defined(__AVX512F__)
      if constexpr (std::is_same_v<T, float>) {
        if (auto kernel = SumColumns(io, reduced)) return kernel;
      }
#endif
      return Reduction<T, A>(io, reduced, A(0), to_acc, add, keep);
    case K::kReduceL1:
      return Reduction<T, A>(
          io, reduced, A(0), [](C v) { return AbsAcc<T>(v); }, add, keep);
    case K::kReduceSumSquare:
      return Reduction<T, A>(
          io, reduced, A(0),
          [](C v) {
            A a = ToAcc<T>(v);
            return Times(a, a);
          },
          add, keep);
    case K::kReduceProduct:
      return Reduction<T, A>(
          io, reduced, A(1), to_acc, [](A a, A b) { return Times(a, b); },
          keep);
    default:
      break;
  }
  if constexpr (kIsFloat<T>) {
    switch (io.node.op->kind) {
      case K::kReduceMean:
        return Reduction<T, double>(
            io, reduced, 0.0, to_acc, add,
            [](double a, int64_t n) { return a / static_cast<double>(n); });
      case K::kReduceL2:
        return Reduction<T, double>(
            io, reduced, 0.0, [](C v) { return double(v) * double(v); }, add,
            [](double a, int64_t) { return std::sqrt(a); });
      case K::kReduceLogSum:
        return Reduction<T, double>(
            io, reduced, 0.0, to_acc, add,
            [](double a, int64_t) { return std::log(a); });
      case K::kReduceLogSumExp:
        return LogSumExp<T>(io, reduced);
      default:
        break;
    }
  }
  return absl::UnimplementedError(
      StrCat("no kernel for ", ir::DTypeName(io.in_types[0]->dtype)));
}

}  // namespace

MadeKernel MakeReduceKernel(const KernelIO& io) {
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> all(rank);
  for (int d = 0; d < rank; ++d) all[d] = d;
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : io.attrs().GetInts("axes", all)) {
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(StrCat("axis ", axis, " out of range"));
    }
    reduced[axis] = true;
  }
  if (auto kernel = TryDnnlReduction(io)) return kernel;
  return Dispatch(io.in_types[0]->dtype, [&](auto tag) {
    return ReduceFor<typename decltype(tag)::type>(io, reduced);
  });
}

// cumulativeSum along `axis`: running totals (double for floats, wrapping
// for integers), from the high index down when `reversed`, each total
// excluding its own element when `exclusive`.
MadeKernel MakeCumulativeSumKernel(const KernelIO& io) {
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  const int64_t axis = io.attrs().GetInt("axis", -1);
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
    return absl::InvalidArgumentError(StrCat("axis ", axis, " out of range"));
  }
  const AxisSplit s = SplitAt(shape, static_cast<int>(axis));
  const bool exclusive = io.attrs().GetBool("exclusive", false);
  const bool reversed = io.attrs().GetBool("reversed", false);
  return Dispatch(io.in_types[0]->dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    const T* x = reinterpret_cast<const T*>(io.in[0]);
    T* y = reinterpret_cast<T*>(io.out[0]);
    std::vector<A> acc(s.inner);
    return MakeFunctionKernel([=, acc = std::move(acc)]() mutable {
      for (int64_t o = 0; o < s.outer; ++o) {
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t step = 0; step < s.length; ++step) {
          const int64_t k = reversed ? s.length - 1 - step : step;
          const int64_t offset = (o * s.length + k) * s.inner;
          const T* px = x + offset;
          T* py = y + offset;
          for (int64_t j = 0; j < s.inner; ++j) {
            A before = acc[j];
            acc[j] = static_cast<A>(acc[j] + ToAcc<T>(Load(px + j)));
            Put(py + j, exclusive ? before : acc[j]);
          }
        }
      }
    });
  });
}

}  // namespace webnnm::backends::cpu
