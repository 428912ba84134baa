// lstm and gru on oneDNN's LSTM, GRU and linear-before-reset GRU primitives
// (float32, the default activations; lstm without peephole weights, since
// WebNN's output gate peeks at the previous cell state and oneDNN's at the
// new one). One unidirectional primitive per direction (direction "both":
// forward as direction 0, backward as 1) reads the input and writes the
// results in place through strides. At each run the kernel copies the
// direction's weights into oneDNN's gate order (lstm i, f, g, o; gru z, r,
// n) and lets a reorder bring them into the primitive's format, since
// weights may change between runs; biases are summed (gru with resetAfter,
// the default, keeps the recurrent bias of n apart, as linear-before-reset
// GRU does). float16 and the other cases stay on the C++ kernel, which
// keeps the per-step float16 rounding.
#include <array>
#include <cstdint>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {
namespace {

using memory = dnnl::memory;
using tag = memory::format_tag;

// What differs between the operations.
struct RnnShape {
  bool lstm = true;
  bool linear_before_reset = false;  // gru resetAfter
  int gates = 4;                     // 4 lstm, 3 gru
  std::array<int, 4> rows{};         // WebNN row block of each oneDNN gate
};

class DnnlRnnKernel : public Kernel {
 public:
  struct Direction {
    dnnl::primitive primitive;
    std::unordered_map<int, memory> args;
    dnnl::reorder layer_reorder, iter_reorder;
    memory user_layer, user_iter, layer, iter;
    std::vector<float> wl, wi, bias;  // oneDNN order, refilled each run
    std::vector<std::byte> scratchpad;
    std::vector<float> sequence;  // dst_layer when no sequence is returned
    std::vector<float> zeros;     // an initial state the node does not give
  };

  DnnlRnnKernel(CpuContext& context, RnnShape shape, int64_t input,
                int64_t hidden, const float* weight, const float* recurrent,
                const float* bias, const float* recurrent_bias)
      : context_(context),
        shape_(shape),
        input_(input),
        hidden_(hidden),
        weight_(weight),
        recurrent_(recurrent),
        bias_(bias),
        recurrent_bias_(recurrent_bias) {}

  std::vector<Direction>& directions() { return directions_; }
  std::string implementation() const override { return implementation_; }
  void set_implementation(std::string s) { implementation_ = std::move(s); }

  absl::Status Run() override {
    try {
      for (size_t d = 0; d < directions_.size(); ++d) {
        Fill(d);
        Direction& dir = directions_[d];
        dir.layer_reorder.execute(context_.stream(), dir.user_layer, dir.layer);
        dir.iter_reorder.execute(context_.stream(), dir.user_iter, dir.iter);
        dir.primitive.execute(context_.stream(), dir.args);
      }
      context_.stream().wait();
    } catch (const dnnl::error& e) {
      return DnnlError(shape_.lstm ? "lstm" : "gru", e);
    }
    return absl::OkStatus();
  }

 private:
  // WebNN [gates * H, in] rows -> oneDNN ldigo [in][gate][H]; biases.
  void Fill(size_t d) {
    Direction& dir = directions_[d];
    const int gates = shape_.gates;
    const int64_t h = hidden_, gh = gates * h;
    auto copy = [&](const float* w, int64_t in, std::vector<float>& out) {
      const float* base = w + d * gh * in;
      for (int g = 0; g < gates; ++g) {
        for (int64_t j = 0; j < h; ++j) {
          const float* row = base + (shape_.rows[g] * h + j) * in;
          for (int64_t k = 0; k < in; ++k)
            out[(k * gates + g) * h + j] = row[k];
        }
      }
    };
    copy(weight_, input_, dir.wl);
    copy(recurrent_, h, dir.wi);
    auto at = [&](const float* v, int g, int64_t j) {
      return v ? v[d * gh + shape_.rows[g] * h + j] : 0.0f;
    };
    for (int g = 0; g < gates; ++g) {
      // Linear-before-reset GRU: n's recurrent bias is the extra gate.
      const bool apart = shape_.linear_before_reset && g == 2;
      for (int64_t j = 0; j < h; ++j) {
        dir.bias[g * h + j] =
            at(bias_, g, j) + (apart ? 0.0f : at(recurrent_bias_, g, j));
        if (apart) dir.bias[3 * h + j] = at(recurrent_bias_, g, j);
      }
    }
  }

  CpuContext& context_;
  RnnShape shape_;
  int64_t input_, hidden_;
  const float *weight_, *recurrent_, *bias_, *recurrent_bias_;
  std::vector<Direction> directions_;
  std::string implementation_;
};

// The primitive descriptor of one direction.
dnnl::primitive_desc MakeDesc(const RnnShape& shape, dnnl::rnn_direction dir,
                              const memory::desc& src, const memory::desc& iter,
                              bool states, const memory::desc& layer,
                              const memory::desc& weights_iter,
                              const memory::desc& bias, const memory::desc& dst,
                              const dnnl::engine& e) {
  const auto prop = dnnl::prop_kind::forward_inference;
  const memory::desc none;
  const memory::desc& src_iter = states ? iter : none;
  if (shape.lstm) {
    return dnnl::lstm_forward::primitive_desc(
        dnnl::lstm_forward::desc(prop, dir, src, src_iter, src_iter, layer,
                                 weights_iter, bias, dst, iter, iter),
        DnnlKernel::Attr(), e);
  }
  if (shape.linear_before_reset) {
    return dnnl::lbr_gru_forward::primitive_desc(
        dnnl::lbr_gru_forward::desc(prop, dir, src, src_iter, layer,
                                    weights_iter, bias, dst, iter),
        DnnlKernel::Attr(), e);
  }
  return dnnl::gru_forward::primitive_desc(
      dnnl::gru_forward::desc(prop, dir, src, src_iter, layer, weights_iter,
                              bias, dst, iter),
      DnnlKernel::Attr(), e);
}

}  // namespace

std::unique_ptr<Kernel> TryDnnlRecurrent(const KernelIO& io) {
  const ir::OpKind kind = io.node.op->kind;
  if (!UseDnnlFor(io) ||
      (kind != ir::OpKind::kLstm && kind != ir::OpKind::kGru)) {
    return nullptr;
  }
  const ir::TensorType& x = *io.in_types[0];
  const ir::Attrs& a = io.attrs();
  RnnShape shape;
  shape.lstm = kind == ir::OpKind::kLstm;
  // Slots: lstm (input, weight, recurrentWeight, bias, recurrentBias,
  // peepholeWeight, initialHiddenState, initialCellState) -> (hidden, cell,
  // sequence); gru (input, weight, recurrentWeight, bias, recurrentBias,
  // initialHiddenState) -> (hidden, sequence).
  const int hidden0 = shape.lstm ? 6 : 5, cell0 = shape.lstm ? 7 : -1;
  const size_t sequence_out = shape.lstm ? 2 : 1;
  if (x.dtype != ir::DType::kFloat32 || x.rank() != 3 ||
      (shape.lstm && io.has(5))) {
    return nullptr;
  }
  std::vector<std::string> activations = a.GetStrings("activations", {});
  const std::vector<std::string> defaults =
      shape.lstm ? std::vector<std::string>{"sigmoid", "tanh", "tanh"}
                 : std::vector<std::string>{"sigmoid", "tanh"};
  if (!activations.empty() && activations != defaults) return nullptr;
  if (shape.lstm) {
    shape.gates = 4;  // i, f, g, o
    shape.rows = a.GetString("layout", "iofg") == "ifgo"
                     ? std::array<int, 4>{0, 1, 2, 3}
                     : std::array<int, 4>{0, 2, 3, 1};
  } else {
    shape.gates = 3;  // z, r, n
    shape.rows = a.GetString("layout", "zrn") == "rzn"
                     ? std::array<int, 4>{1, 0, 2, 0}
                     : std::array<int, 4>{0, 1, 2, 0};
    shape.linear_before_reset = a.GetBool("resetAfter", true);
  }
  const int64_t steps = x.shape[0], batch = x.shape[1], input = x.shape[2];
  const int64_t hidden = a.GetInt("hiddenSize", 0);
  if (hidden < 1 || io.out.size() < (shape.lstm ? 2u : 1u)) return nullptr;
  const std::string direction = a.GetString("direction", "forward");
  const int64_t directions = direction == "both" ? 2 : 1;
  const int gates = shape.gates;
  const int bias_gates = shape.linear_before_reset ? 4 : gates;
  auto f32 = [](const std::byte* p) {
    return reinterpret_cast<const float*>(p);
  };
  auto kernel = std::make_unique<DnnlRnnKernel>(
      io.context, shape, input, hidden, f32(io.in[1]), f32(io.in[2]),
      io.has(3) ? f32(io.in[3]) : nullptr, io.has(4) ? f32(io.in[4]) : nullptr);
  const auto dt = memory::data_type::f32;
  const dnnl::engine& e = io.context.engine();
  const int64_t state = batch * hidden;
  std::byte* sequence =
      io.out.size() > sequence_out ? io.out[sequence_out] : nullptr;
  // oneDNN takes every initial state or none.
  const bool states = io.has(hidden0) || (cell0 >= 0 && io.has(cell0));
  try {
    for (int64_t d = 0; d < directions; ++d) {
      DnnlRnnKernel::Direction dir;
      const bool backward = d == 1 || direction == "backward";
      memory::desc src({steps, batch, input}, dt, tag::tnc);
      memory::desc iter({1, 1, batch, hidden}, dt, tag::ldnc);
      memory::desc layer_any({1, 1, input, gates, hidden}, dt, tag::any);
      memory::desc iter_any({1, 1, hidden, gates, hidden}, dt, tag::any);
      memory::desc bias({1, 1, bias_gates, hidden}, dt, tag::ldgo);
      // The sequence result is [steps, directions, batch, hidden].
      memory::desc dst =
          sequence ? StridedDesc({steps, batch, hidden},
                                 {directions * state, hidden, 1})
                   : memory::desc({steps, batch, hidden}, dt, tag::tnc);
      dnnl::primitive_desc pd =
          MakeDesc(shape,
                   backward ? dnnl::rnn_direction::unidirectional_right2left
                            : dnnl::rnn_direction::unidirectional_left2right,
                   src, iter, states, layer_any, iter_any, bias, dst, e);
      // oneDNN 2.6 names its generic RNN driver "ref:any" although it runs
      // the products on its jit GEMM; that one is welcome (gru 50x32x64
      // hidden 128: see docs/backends.md).
      kernel->set_implementation(std::string("oneDNN ") + pd.impl_info_str());
      dir.wl.resize(input * gates * hidden);
      dir.wi.resize(hidden * gates * hidden);
      dir.bias.resize(bias_gates * hidden);
      dir.user_layer = memory({{1, 1, input, gates, hidden}, dt, tag::ldigo}, e,
                              dir.wl.data());
      dir.user_iter = memory({{1, 1, hidden, gates, hidden}, dt, tag::ldigo}, e,
                             dir.wi.data());
      dir.layer = memory(pd.query_md(dnnl::query::weights_md, 0), e);
      dir.iter = memory(pd.query_md(dnnl::query::weights_md, 1), e);
      dir.layer_reorder = dnnl::reorder(dir.user_layer, dir.layer);
      dir.iter_reorder = dnnl::reorder(dir.user_iter, dir.iter);
      void* dst_data;
      if (sequence) {
        dst_data = sequence + d * state * sizeof(float);
      } else {
        dir.sequence.resize(steps * state);
        dst_data = dir.sequence.data();
      }
      auto at = [&](const std::byte* p) {
        return const_cast<std::byte*>(p) + d * state * sizeof(float);
      };
      dir.args = {{DNNL_ARG_SRC_LAYER,
                   memory(src, e, const_cast<std::byte*>(io.in[0]))},
                  {DNNL_ARG_WEIGHTS_LAYER, dir.layer},
                  {DNNL_ARG_WEIGHTS_ITER, dir.iter},
                  {DNNL_ARG_BIAS, memory(bias, e, dir.bias.data())},
                  {DNNL_ARG_DST_LAYER, memory(dst, e, dst_data)},
                  {DNNL_ARG_DST_ITER, memory(iter, e, at(io.out[0]))}};
      if (shape.lstm) {
        dir.args[DNNL_ARG_DST_ITER_C] = memory(iter, e, at(io.out[1]));
      }
      if (states) {
        const bool missing = !io.has(hidden0) || (cell0 >= 0 && !io.has(cell0));
        if (missing) dir.zeros.assign(state, 0.0f);
        auto initial = [&](int slot) {
          return memory(iter, e,
                        io.has(slot) ? static_cast<void*>(at(io.in[slot]))
                                     : static_cast<void*>(dir.zeros.data()));
        };
        dir.args[DNNL_ARG_SRC_ITER] = initial(hidden0);
        if (shape.lstm) dir.args[DNNL_ARG_SRC_ITER_C] = initial(cell0);
      }
      const memory::desc scratch = pd.scratchpad_desc();
      dir.scratchpad.resize(scratch.get_size() + 64);
      auto address = reinterpret_cast<uintptr_t>(dir.scratchpad.data());
      address = (address + 63) / 64 * 64;
      dir.args[DNNL_ARG_SCRATCHPAD] =
          memory(scratch, e, reinterpret_cast<void*>(address));
      dir.primitive = dnnl::primitive(pd.get());
      kernel->directions().push_back(std::move(dir));
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return kernel;
}

}  // namespace webnnm::backends::cpu
