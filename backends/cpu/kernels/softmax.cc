// softmax along any axis on oneDNN's softmax primitive (float16 through
// float32 staging, rounded once), or, for float32 tensors too small for
// oneDNN (CpuContext::use_dnnl), a C++ loop: oneDNN's call costs more than
// a training step's softmax over a few classes (short contiguous rows eight
// at a time on AVX-512, the same operations in the same order).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/common/shape_util.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/dnnl_util.h"
#include "backends/cpu/kernels/exp_doubles.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/short_rows.h"

namespace webnnm::backends::cpu {
namespace {

// fmax as the C library computes it (the larger; the other operand when
// one is NaN), inline.
inline double FMax(double a, double b) {
  if (std::isnan(b)) return a;
  if (std::isnan(a)) return b;
  return a > b ? a : b;
}

// y = e^(x - max) / Σ e^(x - max) along `axis`, in double, rounded once.
// The differences from each row's maximum are gathered first and
// exponentiated together (ExpDoubles), then summed in order.
MadeKernel SmallSoftmax(const KernelIO& io, int axis) {
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  const int64_t outer = Outer(shape, axis), length = shape[axis];
  const int64_t inner = Inner(shape, axis) / length;
  const float* x = reinterpret_cast<const float*>(io.in[0]);
  float* y = reinterpret_cast<float*>(io.out[0]);
  // e: the rows' exponentials; sum: each element's row sum, so that the
  // divisions run as one flat loop.
#if defined(__AVX512F__)
  if (inner == 1 && length <= 16 && outer >= 8) {
    std::vector<double> e(ShortRowsScratch(outer, length));
    return MakeFunctionKernel(
        [=]() mutable { SoftmaxShortRows(x, y, outer, length, e.data()); });
  }
#endif
  std::vector<double> e(outer * inner * length), sum(e.size());
  return MakeFunctionKernel([=]() mutable {
    // Row (o, i) at e[(o * inner + i) * length + k].
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const float* in = x + o * length * inner + i;
        double* row = e.data() + (o * inner + i) * length;
        double max = in[0];
        for (int64_t k = 1; k < length; ++k) {
          max = FMax(max, double(in[k * inner]));
        }
        for (int64_t k = 0; k < length; ++k) {
          row[k] = double(in[k * inner]) - max;
        }
      }
    }
    ExpDoubles(e.data(), static_cast<int64_t>(e.size()));
    for (int64_t r = 0; r < outer * inner; ++r) {
      const double* row = e.data() + r * length;
      double total = 0.0;
      for (int64_t k = 0; k < length; ++k) total += row[k];
      std::fill_n(sum.data() + r * length, length, total);
    }
    if (inner == 1) {  // rows in place: one flat loop
      for (size_t q = 0; q < e.size(); ++q) {
        y[q] = static_cast<float>(e[q] / sum[q]);
      }
      return;
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        float* out = y + o * length * inner + i;
        const int64_t r = (o * inner + i) * length;
        for (int64_t k = 0; k < length; ++k) {
          out[k * inner] = static_cast<float>(e[r + k] / sum[r + k]);
        }
      }
    }
  });
}

}  // namespace

MadeKernel MakeSoftmaxKernel(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  const int64_t axis = io.attrs().GetInt("axis", x.rank() - 1);
  const int64_t n = ElementCount(x.shape);
  if (x.dtype == ir::DType::kFloat32 && !x.shape.empty() &&
      !io.context.use_dnnl(n)) {
    return SmallSoftmax(io, static_cast<int>(axis));
  }
  try {
    // oneDNN needs at least one dimension.
    dnnl::memory::desc d =
        PlainDesc(x.shape.empty() ? DnnlDims{1} : DnnlDims(x.shape));
    dnnl::softmax_forward::primitive_desc pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, d,
                                    static_cast<int>(axis)),
        DnnlKernel::Attr(), io.context.engine());
    auto kernel = std::make_unique<DnnlKernel>(io.context, "softmax");
    kernel->AddInput(DNNL_ARG_SRC, d, x.dtype, io.in[0], n);
    kernel->AddOutput(DNNL_ARG_DST, d, x.dtype, io.out[0], n);
    kernel->SetPrimitive(pd);
    return std::unique_ptr<Kernel>(std::move(kernel));
  } catch (const dnnl::error& e) {
    return DnnlError("softmax", e);
  }
}

}  // namespace webnnm::backends::cpu
