// conv2d whose filter covers more positions than its result has — the
// shape of a convolution's filter gradient as the autodiff rules write it
// (engine/ops/conv_gradient.h: the batch as channels, dy as the filter) —
// on oneDNN's backward-weights primitive instead of its forward one.
//
// Swapping roles makes it an ordinary weights gradient: for
//   y[n, o, i, j] = sum_{c, r, s} x[n, c, i*sh + r*dh - pt, j*sw + s*dw - pl]
//                                 * f[o, c, r, s]
// take the batch n' = c, the "input channels" i' = n, the "result" dy' =
// f[o, c, ., .] (positions r, s) and the "weights" w' = y[n, o, ., .]
// (positions i, j); the strides become the dilations and the dilations
// the strides. oneDNN's gemm forward path builds an im2col matrix as large
// as the filter times the result for this shape (1 ms for a Fashion-MNIST
// CNN's first filter gradient); backward weights reduces over the batch
// directly. The permuted views are described by strides and reordered
// into the primitive's formats on each run.
#include <optional>
#include <unordered_map>

#include "backends/common/shape_util.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"
#include "backends/cpu/kernels/factories.h"

namespace webnnm::backends::cpu {
namespace {

using dnnl::memory;

class LargeFilterConvKernel : public Kernel {
 public:
  LargeFilterConvKernel(CpuContext& context, F32Staging x, F32Staging f,
                        F32Staging y)
      : context_(context),
        x_(std::move(x)),
        f_(std::move(f)),
        y_(std::move(y)) {}

  // `src`, `diff_dst`, `diff_weights`: our buffers in the swapped roles.
  void Init(const dnnl::convolution_backward_weights::primitive_desc& pd,
            const memory::desc& src, const memory::desc& diff_dst,
            const memory::desc& diff_weights) {
    implementation_ =
        std::string("oneDNN backward weights ") + pd.impl_info_str();
    dnnl::engine& e = context_.engine();
    primitive_ = dnnl::convolution_backward_weights(pd);
    memory s = src_.Prepare(memory(src, e, x_.data()), pd.src_desc(), e, false);
    memory d = dst_.Prepare(memory(diff_dst, e, f_.data()), pd.diff_dst_desc(),
                            e, false);
    memory w = out_.Prepare(memory(diff_weights, e, y_.data()),
                            pd.diff_weights_desc(), e, true);
    args_ = {
        {DNNL_ARG_SRC, s}, {DNNL_ARG_DIFF_DST, d}, {DNNL_ARG_DIFF_WEIGHTS, w}};
  }

  absl::Status Run() override {
    x_.Widen();
    f_.Widen();
    try {
      dnnl::stream& s = context_.stream();
      src_.Run(s);
      dst_.Run(s);
      primitive_.execute(s, args_);
      out_.Run(s);
      s.wait();
    } catch (const dnnl::error& e) {
      return DnnlError("conv2d", e);
    }
    y_.Narrow();
    return absl::OkStatus();
  }

  std::string implementation() const override { return implementation_; }

 private:
  CpuContext& context_;
  F32Staging x_, f_, y_;
  std::string implementation_;
  dnnl::primitive primitive_;
  MaybeReorder src_, dst_, out_;
  std::unordered_map<int, memory> args_;
};

}  // namespace

std::unique_ptr<Kernel> TryLargeFilterConv2d(const KernelIO& io) {
  const ir::Attrs& a = io.attrs();
  if (!UseDnnlFor(io) || io.has(2) || a.GetInt("groups", 1) != 1) {
    return nullptr;
  }
  if (auto direct = TryDirectLargeFilterConv2d(io)) return direct;
  const bool nhwc = a.GetString("inputLayout", "nchw") == "nhwc";
  const std::string layout = a.GetString("filterLayout", "oihw");
  const std::vector<int64_t>& xs = io.in_types[0]->shape;
  const std::vector<int64_t>& fs = io.in_types[1]->shape;
  const std::vector<int64_t>& ys = io.out_types[0]->shape;
  if (xs.size() != 4 || fs.size() != 4 || ys.size() != 4 ||
      layout.size() != 4) {
    return nullptr;
  }
  const int64_t n = xs[0], c = nhwc ? xs[3] : xs[1];
  const int64_t h = nhwc ? xs[1] : xs[2], w = nhwc ? xs[2] : xs[3];
  const int64_t o = nhwc ? ys[3] : ys[1];
  const int64_t oh = nhwc ? ys[1] : ys[2], ow = nhwc ? ys[2] : ys[3];
  auto pos = [&](char letter) { return layout.find(letter); };
  const int64_t kh = fs[pos('h')], kw = fs[pos('w')];
  if (kh * kw <= oh * ow || n * c * o == 0) return nullptr;
  std::vector<int64_t> padding = a.GetInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = a.GetInts("strides", {1, 1});
  std::vector<int64_t> dilations = a.GetInts("dilations", {1, 1});
  // Swapped: the strides of the new problem are the dilations, and the
  // other way round; its "result" has kh x kw positions.
  const int64_t sh2 = dilations[0], sw2 = dilations[1];
  const int64_t dh2 = strides[0], dw2 = strides[1];
  const int64_t pb2 = (kh - 1) * sh2 + (oh - 1) * dh2 + 1 - h - padding[0];
  const int64_t pr2 = (kw - 1) * sw2 + (ow - 1) * dw2 + 1 - w - padding[2];
  if (pb2 < 0 || pr2 < 0) return nullptr;
  // Views of our buffers in the swapped roles.
  std::vector<int64_t> fst = Strides(fs);
  const int64_t so = fst[pos('o')], si = fst[pos('i')];
  const int64_t sfh = fst[pos('h')], sfw = fst[pos('w')];
  memory::desc src = nhwc ? StridedDesc({c, n, h, w}, {1, h * w * c, w * c, c})
                          : StridedDesc({c, n, h, w}, {h * w, c * h * w, w, 1});
  memory::desc diff_dst = StridedDesc({c, o, kh, kw}, {si, so, sfh, sfw});
  memory::desc diff_weights =
      nhwc ? StridedDesc({o, n, oh, ow}, {1, oh * ow * o, ow * o, o})
           : StridedDesc({o, n, oh, ow}, {oh * ow, o * oh * ow, ow, 1});
  auto any = [](const memory::dims& dims) {
    return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
  };
  try {
    dnnl::engine& e = io.context.engine();
    const memory::dims st = {sh2, sw2}, di = {dh2 - 1, dw2 - 1};
    const memory::dims pl = {padding[0], padding[2]}, pr = {pb2, pr2};
    dnnl::convolution_forward::desc fwd(
        dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
        any(src.dims()), any(diff_weights.dims()), any(diff_dst.dims()), st, di,
        pl, pr);
    dnnl::convolution_forward::primitive_desc hint(fwd, e);
    dnnl::convolution_backward_weights::desc bwd(
        dnnl::algorithm::convolution_direct, any(src.dims()),
        any(diff_weights.dims()), any(diff_dst.dims()), st, di, pl, pr);
    dnnl::convolution_backward_weights::primitive_desc pd(bwd, e, hint);
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<LargeFilterConvKernel>(
        io.context,
        F32Staging(io.in_types[0]->dtype, const_cast<std::byte*>(io.in[0]),
                   ElementCount(xs)),
        F32Staging(io.in_types[1]->dtype, const_cast<std::byte*>(io.in[1]),
                   ElementCount(fs)),
        F32Staging(io.out_types[0]->dtype, io.out[0], ElementCount(ys)));
    kernel->Init(pd, src, diff_dst, diff_weights);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
