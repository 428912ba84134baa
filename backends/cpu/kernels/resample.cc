// resample2d: nearest-neighbour or bilinear resizing of any two axes of a 4-D
// tensor (float32, float16, int8, uint8).
//
// As the WebNN specification defines it, with half-pixel centres: for an
// output coordinate o along a resized axis, scale = outputSize / inputSize
// (whether the sizes were given or come from `scales`) and the input
// coordinate is clamp((o + 0.5) / scale - 0.5, 0, inputSize - 1), computed
// exactly as (2o + 1) * inputSize / (2 * outputSize) - 0.5 in double.
// Nearest-neighbour takes index ceil(coordinate - 0.5) (ties go down);
// linear interpolates between floor and ceil of the coordinate along both
// axes. Every output element's input offsets and weights along each axis are
// worked out at compile time. Linear results are computed in double and
// rounded once (integers: to nearest even, saturated).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

// Per axis and output index: the input element offsets (lo, hi; equal on
// axes that are not resized) and the weight of hi.
struct AxisTable {
  std::vector<int64_t> lo, hi;
  std::vector<double> t;
};

// The clamped input coordinate of output index `o` (see the file comment).
double InputCoordinate(int64_t o, int64_t in, int64_t out) {
  double c = static_cast<double>(2 * o + 1) * static_cast<double>(in) /
                 (2.0 * static_cast<double>(out)) -
             0.5;
  return std::clamp(c, 0.0, static_cast<double>(in - 1));
}

template <typename T>
Compute<T> FromDouble(double v) {
  using C = Compute<T>;
  if constexpr (std::is_floating_point_v<C>) {
    return static_cast<C>(v);
  } else {
    v = std::nearbyint(v);
    v = std::clamp(v, static_cast<double>(std::numeric_limits<C>::lowest()),
                   static_cast<double>(std::numeric_limits<C>::max()));
    return static_cast<C>(v);
  }
}

template <typename T>
class ResampleKernel : public Kernel {
 public:
  ResampleKernel(bool linear, int axis_y, int axis_x,
                 std::array<int64_t, 4> out_shape,
                 std::array<AxisTable, 4> tables, const T* x, T* y)
      : linear_(linear),
        axis_y_(axis_y),
        axis_x_(axis_x),
        shape_(out_shape),
        tables_(std::move(tables)),
        x_(x),
        y_(y) {}

  absl::Status Run() override {
    if (linear_) {
      RunLinear();
    } else {
      RunNearest();
    }
    return absl::OkStatus();
  }

 private:
  void RunNearest() {
    const auto& t = tables_;
    T* out = y_;
    for (int64_t i0 = 0; i0 < shape_[0]; ++i0) {
      const int64_t o0 = t[0].lo[i0];
      for (int64_t i1 = 0; i1 < shape_[1]; ++i1) {
        const int64_t o1 = o0 + t[1].lo[i1];
        for (int64_t i2 = 0; i2 < shape_[2]; ++i2) {
          const int64_t o2 = o1 + t[2].lo[i2];
          const int64_t* lo3 = t[3].lo.data();
          for (int64_t i3 = 0; i3 < shape_[3]; ++i3) {
            *out++ = x_[o2 + lo3[i3]];
          }
        }
      }
    }
  }

  void RunLinear() {
    const auto& t = tables_;
    const int ay = axis_y_, ax = axis_x_;
    std::array<int64_t, 4> i{};
    T* out = y_;
    for (i[0] = 0; i[0] < shape_[0]; ++i[0]) {
      for (i[1] = 0; i[1] < shape_[1]; ++i[1]) {
        for (i[2] = 0; i[2] < shape_[2]; ++i[2]) {
          for (i[3] = 0; i[3] < shape_[3]; ++i[3]) {
            int64_t base = 0;
            for (int d = 0; d < 4; ++d) {
              if (d != ay && d != ax) base += t[d].lo[i[d]];
            }
            const int64_t y0 = t[ay].lo[i[ay]], y1 = t[ay].hi[i[ay]];
            const int64_t x0 = t[ax].lo[i[ax]], x1 = t[ax].hi[i[ax]];
            const double ty = t[ay].t[i[ay]], tx = t[ax].t[i[ax]];
            auto v = [&](int64_t oy, int64_t ox) {
              return static_cast<double>(Load(x_ + base + oy + ox));
            };
            const double vy0 = v(y0, x0) * (1 - tx) + v(y0, x1) * tx;
            const double vy1 = v(y1, x0) * (1 - tx) + v(y1, x1) * tx;
            Store(out++, FromDouble<T>(vy0 * (1 - ty) + vy1 * ty));
          }
        }
      }
    }
  }

  bool linear_;
  int axis_y_, axis_x_;
  std::array<int64_t, 4> shape_;
  std::array<AxisTable, 4> tables_;
  const T* x_;
  T* y_;
};

}  // namespace

MadeKernel MakeResample2dKernel(const KernelIO& io) {
  const ir::Attrs& a = io.attrs();
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  if (in.size() != 4 || out.size() != 4) {
    return absl::InvalidArgumentError("resample2d needs 4-D tensors");
  }
  std::vector<int64_t> axes = a.GetInts("axes", {2, 3});
  if (axes.size() != 2 || axes[0] == axes[1] || axes[0] < 0 || axes[0] > 3 ||
      axes[1] < 0 || axes[1] > 3) {
    return absl::InvalidArgumentError("malformed resample2d axes");
  }
  if (auto kernel = TryDnnlResampling(io)) return kernel;
  const bool linear = a.GetString("mode", "nearest-neighbor") == "linear";
  const std::vector<int64_t> strides = Strides(in);
  std::array<AxisTable, 4> tables;
  std::array<int64_t, 4> out_shape;
  for (int d = 0; d < 4; ++d) {
    out_shape[d] = out[d];
    AxisTable& t = tables[d];
    t.lo.resize(out[d]);
    t.hi.resize(out[d]);
    t.t.assign(out[d], 0.0);
    const bool resized = d == axes[0] || d == axes[1];
    for (int64_t o = 0; o < out[d]; ++o) {
      int64_t lo = o, hi = o;
      if (resized) {
        double c = InputCoordinate(o, in[d], out[d]);
        if (linear) {
          lo = static_cast<int64_t>(std::floor(c));
          hi = static_cast<int64_t>(std::ceil(c));
          t.t[o] = c - static_cast<double>(lo);
        } else {
          lo = hi = static_cast<int64_t>(std::ceil(c - 0.5));
        }
        lo = std::clamp<int64_t>(lo, 0, in[d] - 1);
        hi = std::clamp<int64_t>(hi, 0, in[d] - 1);
      }
      t.lo[o] = lo * strides[d];
      t.hi[o] = hi * strides[d];
    }
  }
  const ir::DType dtype = io.in_types[0]->dtype;
  return Dispatch(dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T> || std::is_same_v<T, int8_t> ||
                  std::is_same_v<T, uint8_t>) {
      return std::make_unique<ResampleKernel<T>>(
          linear, static_cast<int>(axes[0]), static_cast<int>(axes[1]),
          out_shape, std::move(tables), reinterpret_cast<const T*>(io.in[0]),
          reinterpret_cast<T*>(io.out[0]));
    } else {
      return absl::UnimplementedError(
          StrCat("no kernel for ", ir::DTypeName(dtype)));
    }
  });
}

}  // namespace webnnm::backends::cpu
