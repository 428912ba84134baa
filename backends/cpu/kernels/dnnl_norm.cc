// batchNormalization (any axis, given statistics) and layerNormalization
// over trailing axes in increasing order, on oneDNN's batch and layer
// normalization primitives (float32, and float16 through float32). Layer
// normalization over other axes and instanceNormalization stay in C++.
#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {
namespace {

using Flags = dnnl::normalization_flags;

std::unique_ptr<Kernel> BatchNorm(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  const int64_t axis = io.attrs().GetInt("axis", 1);
  if (axis < 0 || axis >= x.rank()) return nullptr;
  const float epsilon =
      static_cast<float>(io.attrs().GetFloat("epsilon", 1e-5));
  int64_t outer = 1, inner = 1, channels = x.shape[axis];
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  const int64_t n = outer * channels * inner;
  Flags flags = Flags::use_global_stats;
  if (io.has(3)) flags |= Flags::use_scale;
  if (io.has(4)) flags |= Flags::use_shift;
  dnnl::memory::desc data = PlainDesc({outer, channels, inner});
  dnnl::memory::desc stat = PlainDesc({channels});
  dnnl::batch_normalization_forward::primitive_desc pd(
      dnnl::batch_normalization_forward::desc(
          dnnl::prop_kind::forward_inference, data, epsilon, flags),
      DnnlKernel::Attr(), io.context.engine());
  if (IsReference(pd)) return nullptr;
  auto kernel = std::make_unique<DnnlKernel>(io.context, "batchNormalization");
  kernel->AddInput(DNNL_ARG_SRC, data, x.dtype, io.in[0], n);
  kernel->AddInput(DNNL_ARG_MEAN, stat, x.dtype, io.in[1], channels);
  kernel->AddInput(DNNL_ARG_VARIANCE, stat, x.dtype, io.in[2], channels);
  if (io.has(3)) {
    kernel->AddInput(DNNL_ARG_SCALE, stat, x.dtype, io.in[3], channels);
  }
  if (io.has(4)) {
    kernel->AddInput(DNNL_ARG_SHIFT, stat, x.dtype, io.in[4], channels);
  }
  kernel->AddOutput(DNNL_ARG_DST, data, x.dtype, io.out[0], n);
  kernel->SetPrimitive(pd);
  return kernel;
}

std::unique_ptr<Kernel> LayerNorm(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  const int rank = static_cast<int>(x.rank());
  std::vector<int64_t> all;
  for (int i = 1; i < rank; ++i) all.push_back(i);
  std::vector<int64_t> axes = io.attrs().GetInts("axes", all);
  if (axes.empty()) return nullptr;
  // Trailing axes in increasing order: [rank - k, ..., rank - 1].
  const int first = rank - static_cast<int>(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != first + static_cast<int64_t>(i)) return nullptr;
  }
  const float epsilon =
      static_cast<float>(io.attrs().GetFloat("epsilon", 1e-5));
  int64_t groups = 1, count = 1;
  for (int i = 0; i < first; ++i) groups *= x.shape[i];
  for (int i = first; i < rank; ++i) count *= x.shape[i];
  Flags flags = Flags::none;
  if (io.has(1)) flags |= Flags::use_scale;
  if (io.has(2)) flags |= Flags::use_shift;
  dnnl::memory::desc data = PlainDesc({groups, count});
  dnnl::memory::desc param = PlainDesc({count});
  dnnl::layer_normalization_forward::primitive_desc pd(
      dnnl::layer_normalization_forward::desc(
          dnnl::prop_kind::forward_inference, data, epsilon, flags),
      DnnlKernel::Attr(), io.context.engine());
  if (IsReference(pd)) return nullptr;
  auto kernel = std::make_unique<DnnlKernel>(io.context, "layerNormalization");
  kernel->AddInput(DNNL_ARG_SRC, data, x.dtype, io.in[0], groups * count);
  if (io.has(1)) {
    kernel->AddInput(DNNL_ARG_SCALE, param, x.dtype, io.in[1], count);
  }
  if (io.has(2)) {
    kernel->AddInput(DNNL_ARG_SHIFT, param, x.dtype, io.in[2], count);
  }
  kernel->AddOutput(DNNL_ARG_DST, data, x.dtype, io.out[0], groups * count);
  kernel->SetPrimitive(pd);
  return kernel;
}

}  // namespace

std::unique_ptr<Kernel> TryDnnlNormalization(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  if (!UseDnnlFor(io) || !ir::IsFloat(x.dtype) || x.rank() == 0 ||
      ElementCount(x.shape) == 0) {
    return nullptr;
  }
  try {
    switch (io.node.op->kind) {
      case ir::OpKind::kBatchNormalization:
        return BatchNorm(io);
      case ir::OpKind::kLayerNormalization:
        return LayerNorm(io);
      default:
        return nullptr;
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
