// add, sub, mul and div on oneDNN's binary primitive and prelu on its prelu
// primitive (float32, and float16 through float32). oneDNN broadcasts only
// its second operand: when the first one is broadcast instead, add and mul
// swap their operands; other cases stay in C++. max and min stay in C++
// (oneDNN does not propagate NaN through them).
#include <optional>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {
namespace {

// `shape` as oneDNN dims of rank `rank` (leading 1s; rank 0 as {1}).
DnnlDims PaddedDims(const std::vector<int64_t>& shape, size_t rank) {
  DnnlDims dims(std::max<size_t>(rank, 1) - shape.size(), 1);
  dims.insert(dims.end(), shape.begin(), shape.end());
  return dims;
}

std::optional<dnnl::algorithm> AlgorithmOf(ir::OpKind kind) {
  switch (kind) {
    case ir::OpKind::kAdd:
      return dnnl::algorithm::binary_add;
    case ir::OpKind::kSub:
      return dnnl::algorithm::binary_sub;
    case ir::OpKind::kMul:
      return dnnl::algorithm::binary_mul;
    case ir::OpKind::kDiv:
      return dnnl::algorithm::binary_div;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::unique_ptr<Kernel> TryDnnlBinary(const KernelIO& io) {
  const ir::TensorType& y = *io.out_types[0];
  if (!UseDnnlFor(io) || !ir::IsFloat(y.dtype)) return nullptr;
  const int64_t n = ElementCount(y.shape);
  if (n == 0) return nullptr;
  const bool prelu = io.node.op->kind == ir::OpKind::kPrelu;
  std::optional<dnnl::algorithm> algorithm = AlgorithmOf(io.node.op->kind);
  if (!prelu && !algorithm) return nullptr;

  int first = 0, second = 1;
  if (io.in_types[0]->shape != y.shape) {
    const bool commutes = io.node.op->kind == ir::OpKind::kAdd ||
                          io.node.op->kind == ir::OpKind::kMul;
    if (!commutes || io.in_types[1]->shape != y.shape) return nullptr;
    std::swap(first, second);
  }
  const ir::TensorType& a = *io.in_types[first];
  const ir::TensorType& b = *io.in_types[second];
  const size_t rank = y.shape.size();
  try {
    dnnl::memory::desc da = PlainDesc(PaddedDims(a.shape, rank));
    dnnl::memory::desc db = PlainDesc(PaddedDims(b.shape, rank));
    auto kernel =
        std::make_unique<DnnlKernel>(io.context, prelu ? "prelu" : "binary");
    if (prelu) {
      dnnl::prelu_forward::primitive_desc pd(
          dnnl::prelu_forward::desc(dnnl::prop_kind::forward_inference, da, db),
          DnnlKernel::Attr(), io.context.engine());
      if (IsReference(pd)) return nullptr;
      kernel->AddInput(DNNL_ARG_SRC, da, a.dtype, io.in[first], n);
      kernel->AddInput(DNNL_ARG_WEIGHTS, db, b.dtype, io.in[second],
                       ElementCount(b.shape));
      kernel->AddOutput(DNNL_ARG_DST, da, y.dtype, io.out[0], n);
      kernel->SetPrimitive(pd);
    } else {
      dnnl::binary::primitive_desc pd(
          dnnl::binary::desc(*algorithm, da, db, da), DnnlKernel::Attr(),
          io.context.engine());
      if (IsReference(pd)) return nullptr;
      kernel->AddInput(DNNL_ARG_SRC_0, da, a.dtype, io.in[first], n);
      kernel->AddInput(DNNL_ARG_SRC_1, db, b.dtype, io.in[second],
                       ElementCount(b.shape));
      kernel->AddOutput(DNNL_ARG_DST, da, y.dtype, io.out[0], n);
      kernel->SetPrimitive(pd);
    }
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
