// softmax along any axis on oneDNN's softmax primitive (float16 through
// float32 staging, rounded once).
#include <unordered_map>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/dnnl_util.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/shape_util.h"

namespace webnnm::backends::cpu {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(CpuContext& context, F32Staging x, F32Staging y)
      : context_(context), x_(std::move(x)), y_(std::move(y)) {}

  absl::Status Init(const std::vector<int64_t>& shape, int axis) {
    try {
      // oneDNN needs at least one dimension.
      DnnlDims dims = shape.empty() ? DnnlDims{1} : DnnlDims(shape);
      dnnl::memory::desc d = PlainDesc(dims);
      dnnl::softmax_forward::primitive_desc pd(
          dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, d,
                                      axis),
          context_.engine());
      primitive_ = dnnl::softmax_forward(pd);
      args_ = {{DNNL_ARG_SRC, dnnl::memory(d, context_.engine(), x_.data())},
               {DNNL_ARG_DST, dnnl::memory(d, context_.engine(), y_.data())}};
    } catch (const dnnl::error& e) {
      return DnnlError("softmax", e);
    }
    return absl::OkStatus();
  }

  absl::Status Run() override {
    x_.Widen();
    try {
      primitive_.execute(context_.stream(), args_);
      context_.stream().wait();
    } catch (const dnnl::error& e) {
      return DnnlError("softmax", e);
    }
    y_.Narrow();
    return absl::OkStatus();
  }

 private:
  CpuContext& context_;
  F32Staging x_, y_;
  dnnl::softmax_forward primitive_;
  std::unordered_map<int, dnnl::memory> args_;
};

}  // namespace

MadeKernel MakeSoftmaxKernel(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  int64_t axis = io.attrs().GetInt("axis", x.rank() - 1);
  int64_t n = ElementCount(x.shape);
  auto kernel = std::make_unique<SoftmaxKernel>(
      io.context, F32Staging(x.dtype, const_cast<std::byte*>(io.in[0]), n),
      F32Staging(x.dtype, io.out[0], n));
  absl::Status status = kernel->Init(x.shape, static_cast<int>(axis));
  if (!status.ok()) return status;
  return kernel;
}

}  // namespace webnnm::backends::cpu
