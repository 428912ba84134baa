// batchNormalization, instanceNormalization and layerNormalization:
// y = (x - mean) / sqrt(variance + epsilon) * scale + bias, with the
// statistics given (batch) or computed per sample (instance, layer) in
// double precision (two passes). C++ loops over a [outer, C, inner] view.
#include <cmath>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/factories.h"

namespace webnnm::backends::cpu {
namespace {

// Reads element i of an optional float operand (`fallback` when absent).
template <typename T>
float At(const std::byte* p, int64_t i, float fallback) {
  return p ? Load(reinterpret_cast<const T*>(p) + i) : fallback;
}

}  // namespace

MadeKernel MakeBatchNormalizationKernel(const KernelIO& io) {
  if (auto kernel = TryDnnlNormalization(io)) return kernel;
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  int64_t axis = io.attrs().GetInt("axis", 1);
  float epsilon = static_cast<float>(io.attrs().GetFloat("epsilon", 1e-5));
  int64_t outer = 1, inner = 1, channels = shape[axis];
  for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
  return DispatchFloat(io.in_types[0]->dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    const T* x = reinterpret_cast<const T*>(io.in[0]);
    const std::byte *mean = io.in[1], *variance = io.in[2];
    const std::byte* scale = io.has(3) ? io.in[3] : nullptr;
    const std::byte* bias = io.has(4) ? io.in[4] : nullptr;
    T* y = reinterpret_cast<T*>(io.out[0]);
    return MakeFunctionKernel([=] {
      for (int64_t c = 0; c < channels; ++c) {
        float m = At<T>(mean, c, 0);
        float k =
            At<T>(scale, c, 1) / std::sqrt(At<T>(variance, c, 1) + epsilon);
        float b = At<T>(bias, c, 0);
        for (int64_t o = 0; o < outer; ++o) {
          int64_t base = (o * channels + c) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            Store(y + base + i, (Load(x + base + i) - m) * k + b);
          }
        }
      }
    });
  });
}

MadeKernel MakeInstanceNormalizationKernel(const KernelIO& io) {
  const std::vector<int64_t>& s = io.in_types[0]->shape;
  bool nhwc = io.attrs().GetString("layout", "nchw") == "nhwc";
  float epsilon = static_cast<float>(io.attrs().GetFloat("epsilon", 1e-5));
  int64_t n = s[0], c = nhwc ? s[3] : s[1];
  int64_t spatial = nhwc ? s[1] * s[2] : s[2] * s[3];
  // Element (b, ch, i) of the image, for either layout.
  int64_t stride_c = nhwc ? 1 : spatial, stride_i = nhwc ? c : 1;
  return DispatchFloat(io.in_types[0]->dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    const T* x = reinterpret_cast<const T*>(io.in[0]);
    const std::byte* scale = io.has(1) ? io.in[1] : nullptr;
    const std::byte* bias = io.has(2) ? io.in[2] : nullptr;
    T* y = reinterpret_cast<T*>(io.out[0]);
    return MakeFunctionKernel([=] {
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t ch = 0; ch < c; ++ch) {
          int64_t base = b * c * spatial + ch * stride_c;
          double sum = 0;
          for (int64_t i = 0; i < spatial; ++i)
            sum += Load(x + base + i * stride_i);
          double mean = sum / spatial, sq = 0;
          for (int64_t i = 0; i < spatial; ++i) {
            double d = Load(x + base + i * stride_i) - mean;
            sq += d * d;
          }
          double k = At<T>(scale, ch, 1) / std::sqrt(sq / spatial + epsilon);
          double shift = At<T>(bias, ch, 0);
          for (int64_t i = 0; i < spatial; ++i) {
            int64_t at = base + i * stride_i;
            Store(y + at,
                  static_cast<float>((Load(x + at) - mean) * k + shift));
          }
        }
      }
    });
  });
}

MadeKernel MakeLayerNormalizationKernel(const KernelIO& io) {
  if (auto kernel = TryDnnlNormalization(io)) return kernel;
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> all;
  for (int i = 1; i < rank; ++i) all.push_back(i);
  std::vector<int64_t> axes = io.attrs().GetInts("axes", all);
  float epsilon = static_cast<float>(io.attrs().GetFloat("epsilon", 1e-5));
  // Split the dimensions into normalized (in `axes` order, which is the
  // scale/bias layout) and kept ones.
  std::vector<bool> normalized(rank, false);
  for (int64_t a : axes) normalized[a] = true;
  std::vector<int64_t> strides = Strides(shape);
  std::vector<int64_t> kept_shape, kept_strides, norm_shape, norm_strides;
  for (int i = 0; i < rank; ++i) {
    if (!normalized[i]) {
      kept_shape.push_back(shape[i]);
      kept_strides.push_back(strides[i]);
    }
  }
  for (int64_t a : axes) {
    norm_shape.push_back(shape[a]);
    norm_strides.push_back(strides[a]);
  }
  int64_t groups = ElementCount(kept_shape), count = ElementCount(norm_shape);
  // The offset of every normalized element within a group, in scale order.
  std::vector<int64_t> offsets(count);
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = j, offset = 0;
    for (int d = static_cast<int>(norm_shape.size()) - 1; d >= 0; --d) {
      offset += (rest % norm_shape[d]) * norm_strides[d];
      rest /= norm_shape[d];
    }
    offsets[j] = offset;
  }
  std::vector<int64_t> bases(groups);
  for (int64_t g = 0; g < groups; ++g) {
    int64_t rest = g, offset = 0;
    for (int d = static_cast<int>(kept_shape.size()) - 1; d >= 0; --d) {
      offset += (rest % kept_shape[d]) * kept_strides[d];
      rest /= kept_shape[d];
    }
    bases[g] = offset;
  }
  return DispatchFloat(io.in_types[0]->dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    const T* x = reinterpret_cast<const T*>(io.in[0]);
    const std::byte* scale = io.has(1) ? io.in[1] : nullptr;
    const std::byte* bias = io.has(2) ? io.in[2] : nullptr;
    T* y = reinterpret_cast<T*>(io.out[0]);
    return MakeFunctionKernel([=] {
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t base = bases[g];
        double sum = 0;
        for (int64_t j = 0; j < count; ++j) sum += Load(x + base + offsets[j]);
        double mean = sum / count, sq = 0;
        for (int64_t j = 0; j < count; ++j) {
          double d = Load(x + base + offsets[j]) - mean;
          sq += d * d;
        }
        double inv = 1.0 / std::sqrt(sq / count + epsilon);
        for (int64_t j = 0; j < count; ++j) {
          int64_t at = base + offsets[j];
          double v = (Load(x + at) - mean) * inv * At<T>(scale, j, 1) +
                     At<T>(bias, j, 0);
          Store(y + at, static_cast<float>(v));
        }
      }
    });
  });
}

}  // namespace webnnm::backends::cpu
