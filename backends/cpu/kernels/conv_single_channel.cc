// conv2d of a float32 nchw image with one input channel (a CNN's first
// layer on grey images), stride 1, dilation 1, no groups: for each filter
// tap one long loop over the (zero-padded) image that the compiler
// vectorizes. oneDNN 2.6 runs this shape on its im2col GEMM path.
//
// y[n, o, i, j] = b[o] + Σ_{r, s} x[n, 0, i + r - pt, j + s - pl] · f[o, 0, r,
// s] with positions outside the image contributing nothing; the sum runs over
// r, then s, in float32 (no fused multiply-adds). Fused operations
// (fusion.h: adds of one value per channel, relu) then run over each
// output channel's image while it is in cache.
#include <algorithm>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"

namespace webnnm::backends::cpu {
namespace {

class SingleChannelConvKernel : public Kernel {
 public:
  struct Shape {
    int64_t n, h, w;         // input images
    int64_t o, oh, ow;       // output channels and size
    int64_t kh, kw;          // filter
    int64_t pt, pb, pl, pr;  // padding
    int64_t fo, fh, fw;      // filter strides of its o, h and w axes
  };

  // An operation fused after the convolution (fusion.h): relu when `add`
  // is null, else y += add[o * step].
  struct Link {
    const float* add = nullptr;
    int64_t step = 0;
  };

  SingleChannelConvKernel(Shape s, const float* x, const float* f,
                          const float* b, float* y, std::vector<Link> links)
      : s_(s),
        x_(x),
        f_(f),
        b_(b),
        y_(y),
        ph_(s.h + s.pt + s.pb),
        pw_(s.w + s.pl + s.pr),
        padded_(s.pt + s.pb + s.pl + s.pr > 0 ? ph_ * pw_ : 0, 0.0f),
        wide_(s.oh * pw_),
        taps_(s.kh * s.kw),
        all_taps_(s.o * s.kh * s.kw),
        links_(std::move(links)) {}

  // Each output row is computed pw_ wide (its last kw - 1 columns are
  // discarded), so that one filter tap is one long loop over the image.
  absl::Status Run() override {
    const Shape& s = s_;
    const int64_t span = s.oh * pw_ - (s.kw - 1);  // the taps stay inside
    for (int64_t n = 0; n < s.n; ++n) {
      const float* image = x_ + n * s.h * s.w;
      if (!padded_.empty()) {
        for (int64_t i = 0; i < s.h; ++i) {
          std::copy(image + i * s.w, image + (i + 1) * s.w,
                    padded_.data() + (i + s.pt) * pw_ + s.pl);
        }
        image = padded_.data();
      }
#if defined(__AVX512F__)
      if (s.kh == 3 && s.kw == 3) {
        Rows3x3(image, y_ + n * s.o * s.oh * s.ow);
        continue;
      }
#endif
      for (int64_t o = 0; o < s.o; ++o) {
        float* wide = wide_.data();
        const float bias = b_ ? b_[o] : 0.0f;
        for (int64_t r = 0; r < s.kh; ++r) {
          for (int64_t c = 0; c < s.kw; ++c) {
            taps_[r * s.kw + c] = f_[o * s.fo + r * s.fh + c * s.fw];
          }
        }
        if (s.kh == 3 && s.kw == 3) {
          Taps3x3(image, bias, wide, span);
        } else {
          std::fill(wide, wide + span, bias);
          for (int64_t r = 0; r < s.kh; ++r) {
            for (int64_t c = 0; c < s.kw; ++c) {
              const float weight = taps_[r * s.kw + c];
              const float* in = image + r * pw_ + c;
              for (int64_t p = 0; p < span; ++p) wide[p] += in[p] * weight;
            }
          }
        }
        float* out = y_ + (n * s.o + o) * s.oh * s.ow;
        for (int64_t i = 0; i < s.oh; ++i) {
          std::copy(wide + i * pw_, wide + i * pw_ + s.ow, out + i * s.ow);
        }
        ApplyLinks(o, out);
      }
    }
    return absl::OkStatus();
  }

  std::string implementation() const override {
    return "C++ (direct, one input channel)";
  }

 private:
  // A 3x3 filter: the nine taps of each position summed in a register, in
  // the same order as the general loop (bias, then row by row).
  void Taps3x3(const float* image, float bias, float* wide, int64_t span) {
    const float* t = taps_.data();
    const int64_t w = pw_;
    for (int64_t p = 0; p < span; ++p) {
      const float* in = image + p;
      float acc = bias;
      acc += in[0] * t[0];
      acc += in[1] * t[1];
      acc += in[2] * t[2];
      acc += in[w] * t[3];
      acc += in[w + 1] * t[4];
      acc += in[w + 2] * t[5];
      acc += in[2 * w] * t[6];
      acc += in[2 * w + 1] * t[7];
      acc += in[2 * w + 2] * t[8];
      wide[p] = acc;
    }
  }

#if defined(__AVX512F__)
  // A 3x3 filter, every output channel of one image: sixteen columns of an
  // output row at a time, the nine image vectors they need loaded once for
  // all channels, each channel's sum in the scalar loop's order (bias,
  // then the taps row by row, each product rounded before it is added),
  // the fused operations applied before the store — the same bits as
  // Taps3x3 and ApplyLinks.
  void Rows3x3(const float* image, float* out) {
    const Shape& s = s_;
    const int64_t w = padded_.empty() ? s.w : pw_;
    for (int64_t o = 0; o < s.o; ++o) {
      for (int64_t t = 0; t < 9; ++t) {
        all_taps_[o * 9 + t] = f_[o * s.fo + (t / 3) * s.fh + (t % 3) * s.fw];
      }
    }
    for (int64_t i = 0; i < s.oh; ++i) {
      for (int64_t j = 0; j < s.ow; j += 16) {
        const int64_t left = s.ow - j;
        const __mmask16 mask = left >= 16
                                   ? __mmask16(0xFFFF)
                                   : static_cast<__mmask16>((1u << left) - 1);
        __m512 in[9];
        for (int t = 0; t < 9; ++t) {
          in[t] =
              _mm512_maskz_loadu_ps(mask, image + (i + t / 3) * w + j + t % 3);
        }
        // Four channels' sums interleaved (each a chain of nine dependent
        // additions), then the rest one by one.
        int64_t o = 0;
        for (; o + 4 <= s.o; o += 4) Channels<4>(in, o, i, j, mask, out);
        for (; o < s.o; ++o) Channels<1>(in, o, i, j, mask, out);
      }
    }
  }

  template <int K>
  void Channels(const __m512 (&in)[9], int64_t o, int64_t i, int64_t j,
                __mmask16 mask, float* out) const {
    const Shape& s = s_;
    __m512 acc[K];
    for (int k = 0; k < K; ++k) {
      acc[k] = _mm512_set1_ps(b_ ? b_[o + k] : 0.0f);
    }
    for (int t = 0; t < 9; ++t) {
      for (int k = 0; k < K; ++k) {
        acc[k] = _mm512_add_ps(
            acc[k],
            _mm512_mul_ps(in[t], _mm512_set1_ps(all_taps_[(o + k) * 9 + t])));
      }
    }
    const __m512 zero = _mm512_setzero_ps();
    for (int k = 0; k < K; ++k) {
      for (const Link& link : links_) {
        acc[k] =
            link.add == nullptr
                ? _mm512_maskz_mov_ps(
                      _mm512_cmp_ps_mask(acc[k], zero, _CMP_GT_OQ), acc[k])
                : _mm512_add_ps(acc[k],
                                _mm512_set1_ps(link.add[(o + k) * link.step]));
      }
      _mm512_mask_storeu_ps(out + ((o + k) * s.oh + i) * s.ow + j, mask,
                            acc[k]);
    }
  }
#endif

  // The fused operations over one output channel's image, in order (the
  // bits of their own kernels: fused_elementwise.cc's relu and add).
  void ApplyLinks(int64_t o, float* out) const {
    const int64_t count = s_.oh * s_.ow;
    for (const Link& link : links_) {
      if (link.add == nullptr) {
        for (int64_t i = 0; i < count; ++i) {
          out[i] = out[i] > 0.0f ? out[i] : 0.0f;
        }
      } else {
        const float b = link.add[o * link.step];
        for (int64_t i = 0; i < count; ++i) out[i] += b;
      }
    }
  }

  Shape s_;
  const float* x_;
  const float* f_;
  const float* b_;
  float* y_;
  int64_t ph_, pw_;              // the padded image's size
  std::vector<float> padded_;    // one padded image (zero border), if padded
  std::vector<float> wide_;      // one output channel, rows pw_ wide
  std::vector<float> taps_;      // one output channel's filter, row-major
  std::vector<float> all_taps_;  // every output channel's, o-major
  std::vector<Link> links_;
};

// The step between channels of a tensor added to an nchw result of
// `channels` channels when it holds one value per channel (0: one value for
// all), or -1.
int64_t ChannelStep(const ir::TensorType& t, int64_t channels) {
  const int64_t rank = static_cast<int64_t>(t.shape.size());
  if (t.dtype != ir::DType::kFloat32 || rank > 4) return -1;
  int64_t step = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = t.shape[i];
    if (d == 1) continue;
    if (rank - i != 3 || d != channels) return -1;
    step = 1;
  }
  return step;
}

// conv2d's checks that need no shapes beyond the operands' types.
bool Eligible(const ir::Attrs& a, const ir::TensorType& x,
              const ir::TensorType& f, const ir::TensorType& y) {
  if (x.dtype != ir::DType::kFloat32 || f.dtype != ir::DType::kFloat32 ||
      y.dtype != ir::DType::kFloat32 || x.shape.size() != 4 ||
      f.shape.size() != 4 || y.shape.size() != 4 || x.shape[1] != 1 ||
      a.GetString("inputLayout", "nchw") != "nchw" ||
      a.GetInt("groups", 1) != 1) {
    return false;
  }
  for (const char* name : {"strides", "dilations"}) {
    for (int64_t v : a.GetInts(name, {1, 1})) {
      if (v != 1) return false;
    }
  }
  return true;
}

}  // namespace

bool SingleChannelConv2dFuses(const ir::Graph& graph, const ir::Node& conv) {
  if (conv.operands.size() < 2 || conv.operands[0] == ir::kNoValue ||
      conv.operands[1] == ir::kNoValue || conv.outputs.size() != 1) {
    return false;
  }
  return Eligible(conv.attrs, graph.value(conv.operands[0]).type,
                  graph.value(conv.operands[1]).type,
                  graph.value(conv.outputs[0]).type);
}

bool SingleChannelConv2dLink(const ir::Graph& graph, const ir::Node& link,
                             ir::ValueId v) {
  if (link.op->kind == ir::OpKind::kRelu) {
    return link.operands.size() == 1 && link.operands[0] == v;
  }
  if (link.op->kind != ir::OpKind::kAdd || link.operands.size() != 2) {
    return false;
  }
  const ir::ValueId other = link.operands[link.operands[0] == v ? 1 : 0];
  const ir::TensorType& y = graph.value(v).type;
  return other != v && y.shape.size() == 4 &&
         ChannelStep(graph.value(other).type, y.shape[1]) >= 0;
}

std::unique_ptr<Kernel> TrySingleChannelConv2d(const KernelIO& io) {
  const ir::Attrs& a = io.attrs();
  const ir::TensorType& x = *io.in_types[0];
  const ir::TensorType& f = *io.in_types[1];
  const ir::TensorType& y = *io.out_types[0];
  if (!Eligible(a, x, f, y)) return nullptr;
  if (io.has(2) && io.in_types[2]->dtype != ir::DType::kFloat32) {
    return nullptr;
  }
  std::vector<SingleChannelConvKernel::Link> links;
  for (const FusedOp& op : io.fused) {
    if (op.node->op->kind == ir::OpKind::kRelu) {
      links.push_back({});
      continue;
    }
    const int64_t step = op.other_type && op.node->op->kind == ir::OpKind::kAdd
                             ? ChannelStep(*op.other_type, y.shape[1])
                             : -1;
    if (step < 0) return nullptr;
    links.push_back({reinterpret_cast<const float*>(op.other), step});
  }
  const std::vector<int64_t> pads = a.GetInts("padding", {0, 0, 0, 0});
  if (pads.size() != 4) return nullptr;
  const std::string layout = a.GetString("filterLayout", "oihw");
  if (layout.size() != 4) return nullptr;
  auto pos = [&](char letter) { return layout.find(letter); };
  if (pos('o') == std::string::npos || pos('i') == std::string::npos ||
      pos('h') == std::string::npos || pos('w') == std::string::npos) {
    return nullptr;
  }
  const std::vector<int64_t> strides = Strides(f.shape);
  SingleChannelConvKernel::Shape s{};
  s.n = x.shape[0];
  s.h = x.shape[2];
  s.w = x.shape[3];
  s.o = y.shape[1];
  s.oh = y.shape[2];
  s.ow = y.shape[3];
  s.kh = f.shape[pos('h')];
  s.kw = f.shape[pos('w')];
  s.pt = pads[0];
  s.pb = pads[1];
  s.pl = pads[2];
  s.pr = pads[3];
  s.fo = strides[pos('o')];
  s.fh = strides[pos('h')];
  s.fw = strides[pos('w')];
  if (f.shape[pos('i')] != 1 || f.shape[pos('o')] != s.o ||
      s.oh != s.h + pads[0] + pads[1] - s.kh + 1 ||
      s.ow != s.w + pads[2] + pads[3] - s.kw + 1) {
    return nullptr;
  }
  return std::make_unique<SingleChannelConvKernel>(
      s, reinterpret_cast<const float*>(io.in[0]),
      reinterpret_cast<const float*>(io.in[1]),
      io.has(2) ? reinterpret_cast<const float*>(io.in[2]) : nullptr,
      reinterpret_cast<float*>(io.out[0]), std::move(links));
}

}  // namespace webnnm::backends::cpu
