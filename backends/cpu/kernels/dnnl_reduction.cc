// Sums, means, products and norms on oneDNN's reduction primitive (float32,
// and float16 through float32; oneDNN accumulates in float32, well within
// the n-ULP tolerance of a reduction over n elements). oneDNN 2.6 has jit
// code for some layouts only (whole-tensor and innermost reductions); the
// rest keep the C++ kernel. reduceMax and reduceMin stay in C++ (oneDNN
// does not propagate NaN through them), as do reduceLogSum (oneDNN's log
// post-op gives log(1) = -1.4e-6), reduceLogSumExp (the maximum must be
// subtracted first) and reductions over no axes.
#include <optional>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {
namespace {

struct Reduction {
  dnnl::algorithm algorithm;
  float p = 0;
};

std::optional<Reduction> ReductionOf(ir::OpKind kind) {
  using A = dnnl::algorithm;
  switch (kind) {
    case ir::OpKind::kReduceSum:
      return Reduction{A::reduction_sum};
    case ir::OpKind::kReduceMean:
      return Reduction{A::reduction_mean};
    case ir::OpKind::kReduceProduct:
      return Reduction{A::reduction_mul};
    case ir::OpKind::kReduceL1:
      return Reduction{A::reduction_norm_lp_sum, 1};
    case ir::OpKind::kReduceL2:
      return Reduction{A::reduction_norm_lp_sum, 2};
    case ir::OpKind::kReduceSumSquare:
      return Reduction{A::reduction_norm_lp_power_p_sum, 2};
    default:
      return std::nullopt;
  }
}

}  // namespace

std::unique_ptr<Kernel> TryDnnlReduction(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  if (!UseDnnlFor(io) || !ir::IsFloat(x.dtype)) return nullptr;
  std::optional<Reduction> r = ReductionOf(io.node.op->kind);
  if (!r || x.shape.empty()) return nullptr;
  const int64_t n = ElementCount(x.shape);
  if (n == 0) return nullptr;

  const int rank = static_cast<int>(x.shape.size());
  std::vector<int64_t> all(rank);
  for (int d = 0; d < rank; ++d) all[d] = d;
  DnnlDims out_dims(x.shape.begin(), x.shape.end());
  bool reduces = false;
  for (int64_t axis : io.attrs().GetInts("axes", all)) {
    if (axis < 0 || axis >= rank) return nullptr;
    reduces = reduces || out_dims[axis] > 1;
    out_dims[axis] = 1;
  }
  if (!reduces) return nullptr;  // oneDNN rejects a reduction of nothing
  int64_t m = 1;
  for (int64_t d : out_dims) m *= d;
  try {
    dnnl::memory::desc src = PlainDesc(DnnlDims(x.shape));
    dnnl::memory::desc dst = PlainDesc(out_dims);
    dnnl::reduction::primitive_desc pd(
        dnnl::reduction::desc(r->algorithm, src, dst, r->p, 0.0f),
        DnnlKernel::Attr(), io.context.engine());
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<DnnlKernel>(io.context, "reduction");
    kernel->AddInput(DNNL_ARG_SRC, src, x.dtype, io.in[0], n);
    kernel->AddOutput(DNNL_ARG_DST, dst, io.out_types[0]->dtype, io.out[0], m);
    kernel->SetPrimitive(pd);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
