// Recurrent operations: gru, gruCell, lstm and lstmCell (float32, float16).
//
// The math is that of the WebNN specification's emulation code, in its
// order of additions:
//   GRU   z = f((b_z + rb_z) + (W_z x + R_z h))      (r likewise)
//         n = g(b_n + (W_n x + r * (rb_n + R_n h)))   resetAfter (default)
//         n = g((b_n + rb_n) + (W_n x + R_n (r * h))) otherwise
//         h' = z * h + n * (1 - z)
//   LSTM  i = f(c * p_i + ((b_i + rb_i) + (W_i x + R_i h)))  (o, f likewise;
//         the peephole of o also reads the previous cell state)
//         g = g((b_g + rb_g) + (W_g x + R_g h))
//         c' = f * c + i * g;  h' = o * h(c')
// with f, g, h the activations (GRU default [sigmoid, tanh], LSTM [sigmoid,
// tanh, tanh]). Gate rows follow the layout (zrn | rzn, iofg | ifgo); the
// peephole weights are always ordered i, o, f.
//
// gru and lstm run each direction over the steps (backward: from the last
// step; direction both: forward as direction 0, backward as 1). Every step's
// hidden state goes to the sequence result at its input step's position.
//
// Everything is computed in float32: at each run the kernel copies the
// direction's weights into transposed float scratch, converts the biases
// and states, and runs two small GEMMs per step (oneDNN's sgemm). float16
// states are rounded to float16 after every step, as a graph of float16
// gruCell/lstmCell steps would. All scratch is allocated by the factory.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <dnnl.h>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/exp_floats.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

enum class Activation { kRelu, kSigmoid, kTanh };

absl::StatusOr<std::vector<Activation>> ReadActivations(
    const ir::Attrs& attrs, std::vector<std::string> fallback) {
  std::vector<std::string> names = attrs.GetStrings("activations", fallback);
  if (names.empty()) names = fallback;
  if (names.size() != fallback.size()) {
    return absl::InvalidArgumentError(
        StrCat("expected ", fallback.size(), " activations"));
  }
  std::vector<Activation> result;
  for (const std::string& name : names) {
    if (name == "relu") {
      result.push_back(Activation::kRelu);
    } else if (name == "sigmoid") {
      result.push_back(Activation::kSigmoid);
    } else if (name == "tanh") {
      result.push_back(Activation::kTanh);
    } else {
      return absl::InvalidArgumentError(
          StrCat("unknown activation '", name, "'"));
    }
  }
  return result;
}

void Activate(Activation a, float* p, int64_t n) {
  switch (a) {
    case Activation::kRelu:
      for (int64_t i = 0; i < n; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
      break;
    case Activation::kSigmoid:
      SigmoidFloats(p, p, n);
      break;
    case Activation::kTanh:
      for (int64_t i = 0; i < n; ++i) p[i] = std::tanh(p[i]);
      break;
  }
}

// c[i][j] = sum_k a[i][k] * bt[k][j] for i < m, j < n: `a` is m x k with
// rows of `lda`, `bt` k x n with rows of `ldb`, `c` rows of `ldc`, on
// oneDNN's sgemm (5x the plain loop on lstm 50x32x64 hidden 128, and within
// the WPT tolerances of lstm and gru).
void MatMul(const float* a, int64_t lda, const float* bt, int64_t ldb, float* c,
            int64_t ldc, int64_t m, int64_t n, int64_t k) {
  dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, lda, bt, ldb, 0.0f, c, ldc);
}

// The value a float16 result would hold (identity for float32).
template <typename T>
inline float Round(float v) {
  if constexpr (std::is_same_v<T, Half>) {
    return HalfBitsToFloat(FloatToHalfBits(v));
  } else {
    return v;
  }
}

template <typename T>
void ToFloat(const T* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = Load(src + i);
}

// What a kernel needs to know of its node, besides the buffers.
struct RecurrentConfig {
  bool lstm = false;
  int64_t steps = 1, directions = 1, batch = 0, input = 0, hidden = 0;
  bool backward = false;  // direction "backward" (direction 0 runs backward)
  bool reset_after = true;
  // Row offset, in units of hidden, of each gate: GRU z, r, n; LSTM i, o,
  // f, g.
  std::array<int64_t, 4> gate{};
  std::vector<Activation> activations;
};

// Operand and result buffers (nullptr: absent).
template <typename T>
struct RecurrentBuffers {
  const T *input = nullptr, *weight = nullptr, *recurrent = nullptr;
  const T *bias = nullptr, *recurrent_bias = nullptr, *peephole = nullptr;
  const T *hidden0 = nullptr, *cell0 = nullptr;
  T *hidden = nullptr, *cell = nullptr, *sequence = nullptr;
};

template <typename T>
class RecurrentKernel : public Kernel {
 public:
  RecurrentKernel(RecurrentConfig config, RecurrentBuffers<T> buffers)
      : c_(std::move(config)), b_(buffers) {
    const int64_t gates = c_.lstm ? 4 : 3;
    gh_size_ = gates * c_.hidden;
    const int64_t state = c_.batch * c_.hidden;
    wt_.resize(c_.input * gh_size_);
    rt_.resize(c_.hidden * gh_size_);
    bias_.resize(gh_size_);
    recurrent_bias_.resize(gh_size_);
    peephole_.resize(3 * c_.hidden);
    x_.resize(c_.batch * c_.input);
    gx_.resize(c_.batch * gh_size_);
    gh_.resize(c_.batch * gh_size_);
    h_.resize(state);
    cell_.resize(state);
    rh_.resize(state);
    tmp_.resize(state);
  }

  absl::Status Run() override {
    for (int64_t d = 0; d < c_.directions; ++d) RunDirection(d);
    return absl::OkStatus();
  }

 private:
  void LoadDirection(int64_t d) {
    const int64_t gh = gh_size_, in = c_.input, hid = c_.hidden;
    // Transpose W [gh, in] -> wt [in, gh] and R [gh, hid] -> rt [hid, gh].
    const T* w = b_.weight + d * gh * in;
    for (int64_t j = 0; j < gh; ++j) {
      for (int64_t k = 0; k < in; ++k) wt_[k * gh + j] = Load(w + j * in + k);
    }
    const T* r = b_.recurrent + d * gh * hid;
    for (int64_t j = 0; j < gh; ++j) {
      for (int64_t k = 0; k < hid; ++k) rt_[k * gh + j] = Load(r + j * hid + k);
    }
    auto vector = [&](const T* src, int64_t size, std::vector<float>& dst) {
      if (src) {
        ToFloat(src + d * size, dst.data(), size);
      } else {
        std::fill(dst.begin(), dst.end(), 0.0f);
      }
    };
    vector(b_.bias, gh, bias_);
    vector(b_.recurrent_bias, gh, recurrent_bias_);
    vector(b_.peephole, 3 * hid, peephole_);
    const int64_t state = c_.batch * hid;
    vector(b_.hidden0, state, h_);
    vector(b_.cell0, state, cell_);
  }

  void RunDirection(int64_t d) {
    LoadDirection(d);
    const int64_t batch = c_.batch, hid = c_.hidden, gh = gh_size_;
    const int64_t state = batch * hid;
    const bool backward = d == 1 || c_.backward;
    for (int64_t s = 0; s < c_.steps; ++s) {
      const int64_t t = backward ? c_.steps - 1 - s : s;
      ToFloat(b_.input + t * batch * c_.input, x_.data(), batch * c_.input);
      MatMul(x_.data(), c_.input, wt_.data(), gh, gx_.data(), gh, batch, gh,
             c_.input);
      if (c_.lstm) {
        LstmStep();
      } else {
        GruStep();
      }
      if (b_.sequence) {
        T* out = b_.sequence + (t * c_.directions + d) * state;
        for (int64_t i = 0; i < state; ++i) Store(out + i, h_[i]);
      }
    }
    for (int64_t i = 0; i < state; ++i) Store(b_.hidden + d * state + i, h_[i]);
    if (b_.cell) {
      for (int64_t i = 0; i < state; ++i) {
        Store(b_.cell + d * state + i, cell_[i]);
      }
    }
  }

  void GruStep() {
    const int64_t batch = c_.batch, hid = c_.hidden, gh = gh_size_;
    const int64_t zo = c_.gate[0] * hid, ro = c_.gate[1] * hid,
                  no = c_.gate[2] * hid;
    const float* b = bias_.data();
    const float* rb = recurrent_bias_.data();
    // z and r (rows [0, 2 * hid) in both layouts), and R_n h when the reset
    // gate is applied after the product.
    MatMul(h_.data(), hid, rt_.data(), gh, gh_.data(), gh, batch,
           c_.reset_after ? gh : 2 * hid, hid);
    for (int64_t i = 0; i < batch; ++i) {
      float* x = gx_.data() + i * gh;
      const float* h = gh_.data() + i * gh;
      for (int64_t j : {zo, ro}) {
        for (int64_t k = j; k < j + hid; ++k) {
          x[k] = (b[k] + rb[k]) + (x[k] + h[k]);
        }
        Activate(c_.activations[0], x + j, hid);
      }
    }
    if (c_.reset_after) {
      for (int64_t i = 0; i < batch; ++i) {
        float* x = gx_.data() + i * gh;
        const float* h = gh_.data() + i * gh;
        for (int64_t k = 0; k < hid; ++k) {
          x[no + k] =
              b[no + k] + (x[no + k] + x[ro + k] * (rb[no + k] + h[no + k]));
        }
      }
    } else {
      for (int64_t i = 0; i < batch; ++i) {
        for (int64_t k = 0; k < hid; ++k) {
          rh_[i * hid + k] = gx_[i * gh + ro + k] * h_[i * hid + k];
        }
      }
      // R_n (r * h) into the n rows of gh.
      MatMul(rh_.data(), hid, rt_.data() + no, gh, gh_.data() + no, gh, batch,
             hid, hid);
      for (int64_t i = 0; i < batch; ++i) {
        float* x = gx_.data() + i * gh;
        const float* h = gh_.data() + i * gh;
        for (int64_t k = no; k < no + hid; ++k) {
          x[k] = (b[k] + rb[k]) + (x[k] + h[k]);
        }
      }
    }
    for (int64_t i = 0; i < batch; ++i) {
      float* x = gx_.data() + i * gh;
      Activate(c_.activations[1], x + no, hid);
      float* h = h_.data() + i * hid;
      for (int64_t k = 0; k < hid; ++k) {
        const float z = x[zo + k], n = x[no + k];
        h[k] = Round<T>(z * h[k] + n * (1.0f - z));
      }
    }
  }

  void LstmStep() {
    const int64_t batch = c_.batch, hid = c_.hidden, gh = gh_size_;
    const int64_t io = c_.gate[0] * hid, oo = c_.gate[1] * hid,
                  fo = c_.gate[2] * hid, go = c_.gate[3] * hid;
    const float* b = bias_.data();
    const float* rb = recurrent_bias_.data();
    const float* p = peephole_.data();
    const bool peephole = b_.peephole != nullptr;
    MatMul(h_.data(), hid, rt_.data(), gh, gh_.data(), gh, batch, gh, hid);
    for (int64_t i = 0; i < batch; ++i) {
      float* x = gx_.data() + i * gh;
      const float* h = gh_.data() + i * gh;
      for (int64_t k = 0; k < gh; ++k) x[k] = (b[k] + rb[k]) + (x[k] + h[k]);
      const float* cell = cell_.data() + i * hid;
      if (peephole) {
        // Peephole weights: i, o, f.
        for (int64_t k = 0; k < hid; ++k) {
          x[io + k] = cell[k] * p[k] + x[io + k];
          x[oo + k] = cell[k] * p[hid + k] + x[oo + k];
          x[fo + k] = cell[k] * p[2 * hid + k] + x[fo + k];
        }
      }
      Activate(c_.activations[0], x + io, hid);
      Activate(c_.activations[0], x + oo, hid);
      Activate(c_.activations[0], x + fo, hid);
      Activate(c_.activations[1], x + go, hid);
    }
    for (int64_t i = 0; i < batch; ++i) {
      const float* x = gx_.data() + i * gh;
      float* cell = cell_.data() + i * hid;
      float* filtered = tmp_.data() + i * hid;
      for (int64_t k = 0; k < hid; ++k) {
        cell[k] = Round<T>(x[fo + k] * cell[k] + x[io + k] * x[go + k]);
        filtered[k] = cell[k];
      }
      Activate(c_.activations[2], filtered, hid);
      float* h = h_.data() + i * hid;
      for (int64_t k = 0; k < hid; ++k) {
        h[k] = Round<T>(x[oo + k] * filtered[k]);
      }
    }
  }

  RecurrentConfig c_;
  RecurrentBuffers<T> b_;
  int64_t gh_size_ = 0;  // gates * hidden
  // Float scratch: transposed weights of one direction, biases, peephole
  // weights, one step's input, gate sums, states.
  std::vector<float> wt_, rt_, bias_, recurrent_bias_, peephole_;
  std::vector<float> x_, gx_, gh_, h_, cell_, rh_, tmp_;
};

// Slots of the operands and results that differ between the operations.
struct Slots {
  int bias, recurrent_bias, peephole, hidden0, cell0;  // -1: none
  int cell_out, sequence_out;
};

MadeKernel MakeRecurrent(const KernelIO& io, bool lstm) {
  if (auto kernel = TryDnnlRecurrent(io)) return kernel;
  const ir::Attrs& a = io.attrs();
  const ir::OpKind kind = io.node.op->kind;
  const bool sequence = kind == ir::OpKind::kGru || kind == ir::OpKind::kLstm;
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  if (in.size() != (sequence ? 3u : 2u)) {
    return absl::InvalidArgumentError("wrong input rank");
  }
  RecurrentConfig c;
  c.lstm = lstm;
  c.hidden = a.GetInt("hiddenSize", 0);
  if (sequence) {
    c.steps = in[0];
    c.batch = in[1];
    c.input = in[2];
    std::string direction = a.GetString("direction", "forward");
    c.directions = direction == "both" ? 2 : 1;
    c.backward = direction == "backward";
  } else {
    c.batch = in[0];
    c.input = in[1];
  }
  if (c.hidden < 1) return absl::InvalidArgumentError("no hiddenSize");
  absl::StatusOr<std::vector<Activation>> activations =
      lstm ? ReadActivations(a, {"sigmoid", "tanh", "tanh"})
           : ReadActivations(a, {"sigmoid", "tanh"});
  if (!activations.ok()) return activations.status();
  c.activations = *std::move(activations);
  if (lstm) {
    // i, o, f, g
    if (a.GetString("layout", "iofg") == "ifgo") {
      c.gate = {0, 3, 1, 2};
    } else {
      c.gate = {0, 1, 2, 3};
    }
  } else {
    // z, r, n
    if (a.GetString("layout", "zrn") == "rzn") {
      c.gate = {1, 0, 2, 0};
    } else {
      c.gate = {0, 1, 2, 0};
    }
    c.reset_after = a.GetBool("resetAfter", true);
  }
  Slots s;
  switch (kind) {
    case ir::OpKind::kGru:
      s = {3, 4, -1, 5, -1, -1, 1};
      break;
    case ir::OpKind::kGruCell:
      s = {4, 5, -1, 3, -1, -1, -1};
      break;
    case ir::OpKind::kLstm:
      s = {3, 4, 5, 6, 7, 1, 2};
      break;
    case ir::OpKind::kLstmCell:
      s = {5, 6, 7, 3, 4, 1, -1};
      break;
    default:
      return absl::InvalidArgumentError("not a recurrent operation");
  }
  const ir::DType dtype = io.in_types[0]->dtype;
  if (dtype != ir::DType::kFloat32 && dtype != ir::DType::kFloat16) {
    return absl::UnimplementedError(
        StrCat("no kernel for ", ir::DTypeName(dtype)));
  }
  return DispatchFloat(dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    auto operand = [&](int slot) -> const T* {
      return slot >= 0 && io.has(slot) ? reinterpret_cast<const T*>(io.in[slot])
                                       : nullptr;
    };
    auto result = [&](int slot) -> T* {
      return slot >= 0 && static_cast<size_t>(slot) < io.out.size()
                 ? reinterpret_cast<T*>(io.out[slot])
                 : nullptr;
    };
    RecurrentBuffers<T> b;
    b.input = operand(0);
    b.weight = operand(1);
    b.recurrent = operand(2);
    b.bias = operand(s.bias);
    b.recurrent_bias = operand(s.recurrent_bias);
    b.peephole = operand(s.peephole);
    b.hidden0 = operand(s.hidden0);
    b.cell0 = operand(s.cell0);
    b.hidden = result(0);
    b.cell = result(s.cell_out);
    b.sequence = result(s.sequence_out);
    if (!b.input || !b.weight || !b.recurrent || !b.hidden ||
        (lstm && !b.cell)) {
      return absl::InvalidArgumentError("missing operand or result");
    }
    return std::make_unique<RecurrentKernel<T>>(std::move(c), b);
  });
}

}  // namespace

MadeKernel MakeGruKernel(const KernelIO& io) {
  return MakeRecurrent(io, /*lstm=*/false);
}

MadeKernel MakeLstmKernel(const KernelIO& io) {
  return MakeRecurrent(io, /*lstm=*/true);
}

}  // namespace webnnm::backends::cpu
