// conv2d and convTranspose2d on oneDNN's convolution and deconvolution
// primitives. The input and result are used in our nchw/nhwc buffers, or,
// for nchw images with many channels, reordered from and into the formats
// the primitive picks (LetOneDnnPickFormats); the filter, in whichever
// WebNN layout, is described to oneDNN by its strides and reordered into
// the primitive's preferred format on each run (its values may change
// between runs, as trained parameters do).
// A transposed convolution whose output padding would need negative padding
// in oneDNN runs as a direct loop instead.
#include <unordered_map>

#include "backends/common/shape_util.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

using dnnl::memory;

struct Geometry {
  int64_t n, c, h, w;  // input
  int64_t o, oh, ow;   // output channels and size
  int64_t g;           // groups
  int64_t kh, kw;
  int64_t pt, pb, pl, pr;  // padding
  int64_t sh, sw, dh, dw;  // strides, dilations
  bool nhwc;
};

// The input/output descriptor of an image in our layout.
memory::desc ImageDesc(int64_t n, int64_t c, int64_t h, int64_t w, bool nhwc) {
  return nhwc ? StridedDesc({n, c, h, w}, {h * w * c, 1, w * c, c})
              : StridedDesc({n, c, h, w}, {c * h * w, h * w, w, 1});
}

// The filter descriptor: dims {g, out/g, in/g, kh, kw} (oneDNN's grouped
// order) with strides read off the WebNN layout string over the filter's
// own dims. `out_letter`/`in_letter` name the layout's output and input
// channel letters; `grouped_axis` is the letter whose dimension holds all
// groups (conv2d: 'o'; convTranspose2d: 'i').
memory::desc FilterDesc(const std::string& layout,
                        const std::vector<int64_t>& shape, int64_t g,
                        char grouped) {
  std::vector<int64_t> strides = Strides(shape);
  auto pos = [&](char letter) { return layout.find(letter); };
  int64_t so = strides[pos('o')], si = strides[pos('i')];
  int64_t sh = strides[pos('h')], sw = strides[pos('w')];
  int64_t o = shape[pos('o')], i = shape[pos('i')];
  int64_t kh = shape[pos('h')], kw = shape[pos('w')];
  // Per-group sizes.
  int64_t og = grouped == 'o' ? o / g : o;
  int64_t ig = grouped == 'i' ? i / g : i;
  int64_t sg = grouped == 'o' ? og * so : ig * si;
  return StridedDesc({g, og, ig, kh, kw}, {sg, so, si, sh, sw});
}

class ConvKernel : public Kernel {
 public:
  ConvKernel(CpuContext& context, F32Staging x, F32Staging f,
             std::optional<F32Staging> bias, F32Staging y)
      : context_(context),
        x_(std::move(x)),
        f_(std::move(f)),
        bias_(std::move(bias)),
        y_(std::move(y)) {}

  template <typename PrimitiveDesc, typename Primitive>
  absl::Status Init(const PrimitiveDesc& pd, const memory::desc& x,
                    const memory::desc& f, const memory::desc& y,
                    const char* what) {
    what_ = what;
    implementation_ = std::string("oneDNN ") + pd.impl_info_str();
    try {
      dnnl::engine& e = context_.engine();
      primitive_ = Primitive(pd);
      memory src = src_.Prepare(memory(x, e, x_.data()), pd.src_desc(), e,
                                /*into_user=*/false);
      memory filter =
          filter_.Prepare(memory(f, e, f_.data()), pd.weights_desc(), e, false);
      memory dst = dst_.Prepare(memory(y, e, y_.data()), pd.dst_desc(), e,
                                /*into_user=*/true);
      if (src_.reorder || dst_.reorder) {
        implementation_ += " (reordered to its formats)";
      }
      args_ = {
          {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, filter}, {DNNL_ARG_DST, dst}};
      if (bias_) {
        args_[DNNL_ARG_BIAS] = memory(pd.bias_desc(), e, bias_->data());
      }
    } catch (const dnnl::error& e) {
      return DnnlError(what, e);
    }
    return absl::OkStatus();
  }

  absl::Status Run() override {
    x_.Widen();
    f_.Widen();
    if (bias_) bias_->Widen();
    try {
      dnnl::stream& stream = context_.stream();
      src_.Run(stream);
      filter_.Run(stream);
      primitive_.execute(stream, args_);
      dst_.Run(stream);
      stream.wait();
    } catch (const dnnl::error& e) {
      return DnnlError(what_, e);
    }
    y_.Narrow();
    return absl::OkStatus();
  }

  std::string implementation() const override { return implementation_; }

 private:
  CpuContext& context_;
  F32Staging x_, f_;
  std::optional<F32Staging> bias_;
  F32Staging y_;
  const char* what_ = "";
  std::string implementation_;
  dnnl::primitive primitive_;
  MaybeReorder src_, filter_, dst_;
  std::unordered_map<int, memory> args_;
};

// Whether the primitive picks its own formats for the image and the result
// (reordered from and to our buffers on each run): for nchw images with at
// least 8 channels on both sides, oneDNN 2.6 runs plain nchw on its gemm
// path, 2-2.5x slower than a blocked direct convolution and the reorders
// (64x8x13x13 -> 16 channels, 3x3: 1.03 ms gemm:jit against 0.46 ms
// brgconv and reorders; its transposed convolution 1.33 ms against 0.53).
// With fewer channels blocking does not pay (one input channel: 0.63
// against 0.60 ms; the transposed convolution to one channel 0.85 against
// 2.8 ms), and nhwc already gets the direct convolutions.
bool LetOneDnnPickFormats(const Geometry& g) {
  return !g.nhwc && g.g == 1 && g.c >= 8 && g.o >= 8;
}

memory::desc Formats(const memory::desc& ours, bool any) {
  return any ? memory::desc(ours.dims(), memory::data_type::f32,
                            memory::format_tag::any)
             : ours;
}

F32Staging Stage(const ir::TensorType& type, const std::byte* buffer) {
  return F32Staging(type.dtype, const_cast<std::byte*>(buffer),
                    ElementCount(type.shape));
}

Geometry ReadGeometry(const KernelIO& io, bool transposed) {
  const ir::Attrs& a = io.attrs();
  const ir::TensorType& x = *io.in_types[0];
  const ir::TensorType& y = *io.out_types[0];
  Geometry g;
  g.nhwc = a.GetString("inputLayout", "nchw") == "nhwc";
  auto image = [&](const std::vector<int64_t>& s, int64_t& c, int64_t& h,
                   int64_t& w) {
    c = g.nhwc ? s[3] : s[1];
    h = g.nhwc ? s[1] : s[2];
    w = g.nhwc ? s[2] : s[3];
  };
  g.n = x.shape[0];
  image(x.shape, g.c, g.h, g.w);
  image(y.shape, g.o, g.oh, g.ow);
  g.g = a.GetInt("groups", 1);
  std::vector<int64_t> padding = a.GetInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = a.GetInts("strides", {1, 1});
  std::vector<int64_t> dilations = a.GetInts("dilations", {1, 1});
  g.pt = padding[0];
  g.pb = padding[1];
  g.pl = padding[2];
  g.pr = padding[3];
  g.sh = strides[0];
  g.sw = strides[1];
  g.dh = dilations[0];
  g.dw = dilations[1];
  std::string layout =
      a.GetString("filterLayout", transposed ? "iohw" : "oihw");
  const std::vector<int64_t>& f = io.in_types[1]->shape;
  g.kh = f[layout.find('h')];
  g.kw = f[layout.find('w')];
  return g;
}

// The transposed convolution by its definition: each input element adds
// its products into the output window it reaches.
class DirectTransposedConv : public Kernel {
 public:
  DirectTransposedConv(Geometry g, std::string layout,
                       std::vector<int64_t> filter_shape, F32Staging x,
                       F32Staging f, std::optional<F32Staging> bias,
                       F32Staging y)
      : g_(g),
        layout_(std::move(layout)),
        fstrides_(Strides(filter_shape)),
        x_(std::move(x)),
        f_(std::move(f)),
        bias_(std::move(bias)),
        y_(std::move(y)) {}

  absl::Status Run() override {
    x_.Widen();
    f_.Widen();
    if (bias_) bias_->Widen();
    const Geometry& g = g_;
    int64_t ig = g.c / g.g, og = g.o / g.g;
    auto at = [&](int64_t n, int64_t c, int64_t h, int64_t w, int64_t C,
                  int64_t H, int64_t W) {
      return g.nhwc ? ((n * H + h) * W + w) * C + c
                    : ((n * C + c) * H + h) * W + w;
    };
    int64_t so = fstrides_[layout_.find('o')],
            si = fstrides_[layout_.find('i')];
    int64_t sh = fstrides_[layout_.find('h')],
            sw = fstrides_[layout_.find('w')];
    float* y = y_.data();
    const float* x = x_.data();
    const float* f = f_.data();
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t oc = 0; oc < g.o; ++oc) {
        float b = bias_ ? bias_->data()[oc] : 0.0f;
        for (int64_t h = 0; h < g.oh; ++h) {
          for (int64_t w = 0; w < g.ow; ++w) {
            y[at(n, oc, h, w, g.o, g.oh, g.ow)] = b;
          }
        }
      }
      for (int64_t c = 0; c < g.c; ++c) {
        int64_t group = c / ig;
        for (int64_t ih = 0; ih < g.h; ++ih) {
          for (int64_t iw = 0; iw < g.w; ++iw) {
            float v = x[at(n, c, ih, iw, g.c, g.h, g.w)];
            for (int64_t k = 0; k < og; ++k) {
              int64_t oc = group * og + k;
              for (int64_t r = 0; r < g.kh; ++r) {
                int64_t oh = ih * g.sh + r * g.dh - g.pt;
                if (oh < 0 || oh >= g.oh) continue;
                for (int64_t s = 0; s < g.kw; ++s) {
                  int64_t ow = iw * g.sw + s * g.dw - g.pl;
                  if (ow < 0 || ow >= g.ow) continue;
                  y[at(n, oc, oh, ow, g.o, g.oh, g.ow)] +=
                      v * f[c * si + k * so + r * sh + s * sw];
                }
              }
            }
          }
        }
      }
    }
    y_.Narrow();
    return absl::OkStatus();
  }

 private:
  Geometry g_;
  std::string layout_;
  std::vector<int64_t> fstrides_;
  F32Staging x_, f_;
  std::optional<F32Staging> bias_;
  F32Staging y_;
};

}  // namespace

MadeKernel MakeConv2dKernel(const KernelIO& io) {
  // Fused operations only on the direct kernel of one input channel.
  if (!io.fused.empty()) return TrySingleChannelConv2d(io);
  // Folded transposes only on the direct loops of a large filter (the
  // compiler folds them only where DirectLargeFilterConv2dRuns).
  if (io.is_transposed(0) || io.is_transposed(1)) {
    if (auto kernel = TryDirectLargeFilterConv2d(io)) return kernel;
    return absl::InternalError(
        "conv2d: a folded transpose its kernel cannot read");
  }
  if (auto kernel = TryLargeFilterConv2d(io)) return kernel;
  if (auto kernel = TrySingleChannelConv2d(io)) return kernel;
  Geometry g = ReadGeometry(io, false);
  std::string layout = io.attrs().GetString("filterLayout", "oihw");
  memory::desc x = ImageDesc(g.n, g.c, g.h, g.w, g.nhwc);
  memory::desc y = ImageDesc(g.n, g.o, g.oh, g.ow, g.nhwc);
  memory::desc f = FilterDesc(layout, io.in_types[1]->shape, g.g, 'o');
  std::optional<F32Staging> bias;
  memory::desc b;
  if (io.has(2)) {
    bias.emplace(Stage(*io.in_types[2], io.in[2]));
    b = PlainDesc({g.o});
  }
  auto kernel = std::make_unique<ConvKernel>(
      io.context, Stage(*io.in_types[0], io.in[0]),
      Stage(*io.in_types[1], io.in[1]), std::move(bias),
      Stage(*io.out_types[0], io.out[0]));
  try {
    memory::desc any_f(f.dims(), memory::data_type::f32,
                       memory::format_tag::any);
    const bool any = LetOneDnnPickFormats(g);
    dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        Formats(x, any), any_f, b, Formats(y, any), {g.sh, g.sw},
        {g.dh - 1, g.dw - 1}, {g.pt, g.pl}, {g.pb, g.pr});
    dnnl::convolution_forward::primitive_desc pd(d, io.context.engine());
    absl::Status status =
        kernel->Init<dnnl::convolution_forward::primitive_desc,
                     dnnl::convolution_forward>(pd, x, f, y, "conv2d");
    if (!status.ok()) return status;
  } catch (const dnnl::error& e) {
    return DnnlError("conv2d", e);
  }
  return kernel;
}

MadeKernel MakeConvTranspose2dKernel(const KernelIO& io) {
  Geometry g = ReadGeometry(io, true);
  std::string layout = io.attrs().GetString("filterLayout", "iohw");
  std::optional<F32Staging> bias;
  if (io.has(2)) bias.emplace(Stage(*io.in_types[2], io.in[2]));
  auto stage = [&](int i) { return Stage(*io.in_types[i], io.in[i]); };
  F32Staging y = Stage(*io.out_types[0], io.out[0]);
  // oneDNN's right/bottom padding follows from the output size we want.
  int64_t pb = (g.h - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.pt - g.oh;
  int64_t pr = (g.w - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.pl - g.ow;
  if (pb < 0 || pr < 0) {
    return std::make_unique<DirectTransposedConv>(
        g, layout, io.in_types[1]->shape, stage(0), stage(1), std::move(bias),
        std::move(y));
  }
  memory::desc x = ImageDesc(g.n, g.c, g.h, g.w, g.nhwc);
  memory::desc yd = ImageDesc(g.n, g.o, g.oh, g.ow, g.nhwc);
  memory::desc f = FilterDesc(layout, io.in_types[1]->shape, g.g, 'i');
  memory::desc b;
  if (bias) b = PlainDesc({g.o});
  auto kernel = std::make_unique<ConvKernel>(io.context, stage(0), stage(1),
                                             std::move(bias), std::move(y));
  try {
    memory::desc any_f(f.dims(), memory::data_type::f32,
                       memory::format_tag::any);
    const bool any = LetOneDnnPickFormats(g);
    dnnl::deconvolution_forward::desc d(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::deconvolution_direct, Formats(x, any), any_f, b,
        Formats(yd, any), {g.sh, g.sw}, {g.dh - 1, g.dw - 1}, {g.pt, g.pl},
        {pb, pr});
    dnnl::deconvolution_forward::primitive_desc pd(d, io.context.engine());
    absl::Status status =
        kernel->Init<dnnl::deconvolution_forward::primitive_desc,
                     dnnl::deconvolution_forward>(pd, x, f, yd,
                                                  "convTranspose2d");
    if (!status.ok()) return status;
  } catch (const dnnl::error& e) {
    return DnnlError("convTranspose2d", e);
  }
  return kernel;
}

}  // namespace webnnm::backends::cpu
