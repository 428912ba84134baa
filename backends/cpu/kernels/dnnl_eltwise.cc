// Activations and unary math on oneDNN's eltwise primitive (float32, and
// float16 through float32). Operations oneDNN lacks (hardSigmoid, softsign,
// the trigonometric functions, ...) or whose NaN rules it does not keep
// (clamp) stay in C++, and so does gelu: oneDNN computes x·(1 + erf(x/√2))/2,
// which cancels for negative x (30 ULP off on a WPT case; the C++ kernel
// uses erfc), and log (oneDNN's gives log(1) = -1.4e-6).
#include <optional>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {
namespace {

struct Eltwise {
  dnnl::algorithm algorithm;
  float alpha = 0, beta = 0;
};

std::optional<Eltwise> EltwiseOf(const ir::Node& node) {
  using A = dnnl::algorithm;
  const ir::Attrs& a = node.attrs;
  switch (node.op->kind) {
    case ir::OpKind::kRelu:
      return Eltwise{A::eltwise_relu};
    case ir::OpKind::kLeakyRelu:
      return Eltwise{A::eltwise_relu, float(a.GetFloat("alpha", 0.01))};
    case ir::OpKind::kElu:
      return Eltwise{A::eltwise_elu, float(a.GetFloat("alpha", 1.0))};
    case ir::OpKind::kTanh:
      return Eltwise{A::eltwise_tanh};
    case ir::OpKind::kSigmoid:
      return Eltwise{A::eltwise_logistic};
    case ir::OpKind::kExp:
      return Eltwise{A::eltwise_exp};
    case ir::OpKind::kSqrt:
      return Eltwise{A::eltwise_sqrt};
    case ir::OpKind::kAbs:
      return Eltwise{A::eltwise_abs};
    case ir::OpKind::kNeg:
      return Eltwise{A::eltwise_linear, -1.0f, 0.0f};
    case ir::OpKind::kLinear:
      return Eltwise{A::eltwise_linear, float(a.GetFloat("alpha", 1.0)),
                     float(a.GetFloat("beta", 0.0))};
    case ir::OpKind::kSoftplus:
      return Eltwise{A::eltwise_soft_relu};
    case ir::OpKind::kHardSwish:
      return Eltwise{A::eltwise_hardswish};
    default:
      return std::nullopt;
  }
}

}  // namespace

bool DnnlEltwiseFusible(const ir::Node& node) {
  return node.kind == ir::NodeKind::kOp && EltwiseOf(node).has_value();
}

bool AppendEltwisePostOp(const ir::Node& node, dnnl::post_ops& ops) {
  std::optional<Eltwise> e = EltwiseOf(node);
  if (!e) return false;
  ops.append_eltwise(1.0f, e->algorithm, e->alpha, e->beta);
  return true;
}

std::unique_ptr<Kernel> TryDnnlEltwise(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  if (!UseDnnlFor(io) || !ir::IsFloat(x.dtype)) return nullptr;
  std::optional<Eltwise> e = EltwiseOf(io.node);
  if (!e) return nullptr;
  const int64_t n = ElementCount(x.shape);
  if (n == 0) return nullptr;
  try {
    dnnl::memory::desc d = PlainDesc({n});
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                                    e->algorithm, d, e->alpha, e->beta),
        DnnlKernel::Attr(), io.context.engine());
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<DnnlKernel>(io.context, "eltwise");
    kernel->AddInput(DNNL_ARG_SRC, d, x.dtype, io.in[0], n);
    kernel->AddOutput(DNNL_ARG_DST, d, x.dtype, io.out[0], n);
    kernel->SetPrimitive(pd);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
