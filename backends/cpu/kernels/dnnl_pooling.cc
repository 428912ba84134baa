// averagePool2d on oneDNN's pooling primitive (float32, and float16 through
// float32), nchw or nhwc, with padding, strides and dilations. Padding never
// counts in the average (pooling_avg_exclude_padding). Windows without any
// tap inside the input (our C++ kernel gives 0) stay in C++, as do
// maxPool2d (oneDNN does not propagate NaN through max) and l2Pool2d.
#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {
namespace {

// Whether every one of `out` windows has a tap inside [0, in).
bool EveryWindowTouchesInput(int64_t in, int64_t out, int64_t window,
                             int64_t pad, int64_t stride, int64_t dilation) {
  for (int64_t o = 0; o < out; ++o) {
    const int64_t first = o * stride - pad;
    bool touches = false;
    for (int64_t k = 0; k < window && !touches; ++k) {
      const int64_t i = first + k * dilation;
      touches = i >= 0 && i < in;
    }
    if (!touches) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Kernel> TryDnnlPooling(const KernelIO& io) {
  const ir::TensorType& x = *io.in_types[0];
  const ir::TensorType& y = *io.out_types[0];
  if (!UseDnnlFor(io) || !ir::IsFloat(x.dtype) ||
      io.node.op->kind != ir::OpKind::kAveragePool2d || x.rank() != 4) {
    return nullptr;
  }
  const ir::Attrs& a = io.attrs();
  const bool nhwc = a.GetString("layout", "nchw") == "nhwc";
  const int h = nhwc ? 1 : 2, w = nhwc ? 2 : 3, c = nhwc ? 3 : 1;
  const std::vector<int64_t>& in = x.shape;
  const std::vector<int64_t>& out = y.shape;
  std::vector<int64_t> window = a.GetInts("windowDimensions", {in[h], in[w]});
  std::vector<int64_t> padding = a.GetInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = a.GetInts("strides", {1, 1});
  std::vector<int64_t> dilations = a.GetInts("dilations", {1, 1});
  if (window.size() != 2 || padding.size() != 4 || strides.size() != 2 ||
      dilations.size() != 2 || ElementCount(out) == 0) {
    return nullptr;
  }
  const int64_t axis[2] = {in[h], in[w]}, result[2] = {out[h], out[w]};
  DnnlDims pad_begin(2), pad_end(2), dilation(2);
  for (int i = 0; i < 2; ++i) {
    if (!EveryWindowTouchesInput(axis[i], result[i], window[i], padding[2 * i],
                                 strides[i], dilations[i])) {
      return nullptr;
    }
    // The end padding that gives exactly the rule's output size (padding
    // beyond the last window changes nothing when padding is excluded).
    const int64_t span = (window[i] - 1) * dilations[i] + 1;
    pad_begin[i] = padding[2 * i];
    pad_end[i] = std::max<int64_t>(
        0, (result[i] - 1) * strides[i] + span - axis[i] - pad_begin[i]);
    if ((axis[i] - span + pad_begin[i] + pad_end[i]) / strides[i] + 1 !=
        result[i]) {
      return nullptr;
    }
    dilation[i] = dilations[i] - 1;
  }
  auto desc = [&](const std::vector<int64_t>& s) {
    DnnlDims dims = {s[0], s[c], s[h], s[w]};
    DnnlDims stride = nhwc ? DnnlDims{s[1] * s[2] * s[3], 1, s[2] * s[3], s[3]}
                           : DnnlDims{s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
    return StridedDesc(dims, stride);
  };
  try {
    dnnl::memory::desc src = desc(in), dst = desc(out);
    dnnl::pooling_v2_forward::primitive_desc pd(
        dnnl::pooling_v2_forward::desc(
            dnnl::prop_kind::forward_inference,
            dnnl::algorithm::pooling_avg_exclude_padding, src, dst,
            DnnlDims(strides), DnnlDims(window), dilation, pad_begin, pad_end),
        DnnlKernel::Attr(), io.context.engine());
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<DnnlKernel>(io.context, "pooling");
    kernel->AddInput(DNNL_ARG_SRC, src, x.dtype, io.in[0], ElementCount(in));
    kernel->AddOutput(DNNL_ARG_DST, dst, y.dtype, io.out[0], ElementCount(out));
    kernel->SetPrimitive(pd);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
