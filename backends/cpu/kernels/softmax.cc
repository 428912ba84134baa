// softmax along any axis on oneDNN's softmax primitive (float16 through
// float32 staging, rounded once).
#include "backends/cpu/kernels/dnnl_util.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/shape_util.h"

namespace webnnm::backends::cpu {

MadeKernel MakeSoftmaxKernel(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  const int64_t axis = io.attrs().GetInt("axis", x.rank() - 1);
  const int64_t n = ElementCount(x.shape);
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
