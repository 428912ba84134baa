// resample2d in linear mode on oneDNN's resampling primitive (float32, and
// float16 through float32). oneDNN resizes the spatial dimensions of an
// N, C, H, W tensor; any two resized axes map onto H and W, and the other
// two onto N and C, by strides over our buffer. Its coordinates are WebNN's
// half-pixel centres with the factor output / input size. Nearest-neighbour
// stays in C++: oneDNN rounds ties up, WebNN down.
#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {

std::unique_ptr<Kernel> TryDnnlResampling(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  const ir::TensorType& y = *io.out_types[0];
  const ir::Attrs& a = io.attrs();
  if (!UseDnnlFor(io) || !ir::IsFloat(x.dtype) || x.rank() != 4 ||
      y.rank() != 4 || a.GetString("mode", "nearest-neighbor") != "linear") {
    return nullptr;
  }
  std::vector<int64_t> axes = a.GetInts("axes", {2, 3});
  if (axes.size() != 2 || axes[0] == axes[1]) return nullptr;
  for (int64_t axis : axes) {
    if (axis < 0 || axis > 3) return nullptr;
  }
  // Our axes in oneDNN's order: the two kept ones, then the resized ones.
  std::vector<int> order;
  for (int d = 0; d < 4; ++d) {
    if (d != axes[0] && d != axes[1]) order.push_back(d);
  }
  order.push_back(static_cast<int>(std::min(axes[0], axes[1])));
  order.push_back(static_cast<int>(std::max(axes[0], axes[1])));
  auto desc = [&](const std::vector<int64_t>& shape) {
    std::vector<int64_t> strides = Strides(shape);
    DnnlDims dims, steps;
    for (int d : order) {
      dims.push_back(shape[d]);
      steps.push_back(strides[d]);
    }
    return StridedDesc(dims, steps);
  };
  try {
    dnnl::memory::desc src = desc(x.shape), dst = desc(y.shape);
    dnnl::resampling_forward::primitive_desc pd(
        dnnl::resampling_forward::desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::resampling_linear, src,
                                       dst),
        DnnlKernel::Attr(), io.context.engine());
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<DnnlKernel>(io.context, "resampling");
    kernel->AddInput(DNNL_ARG_SRC, src, x.dtype, io.in[0],
                     ElementCount(x.shape));
    kernel->AddOutput(DNNL_ARG_DST, dst, y.dtype, io.out[0],
                      ElementCount(y.shape));
    kernel->SetPrimitive(pd);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
