#include "engine/ops/rnn_unroll.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/dtype.h"
#include "engine/ir/op_def.h"

namespace webnnm::ops {
namespace {

using ir::kNoValue;
using ir::OpKind;
using ir::ValueId;

// One direction's parameters, 2-D weights and 1-D vectors (kNoValue when
// absent).
struct Params {
  ValueId weight = kNoValue, recurrent = kNoValue;
  ValueId bias = kNoValue, recurrent_bias = kNoValue, peephole = kNoValue;
};

struct Spec {
  int64_t hidden = 0;
  std::vector<char> gates;  // gate letters in row order
  std::vector<OpKind> activations;
  bool reset_after = true;  // GRU
};

class Builder {
 public:
  explicit Builder(ir::GraphRewriter& rw) : rw_(rw) {}

  absl::StatusOr<ValueId> Op(OpKind kind, std::vector<ValueId> operands,
                             ir::Attrs attrs = {}) {
    return rw_.Add(kind, std::move(operands), std::move(attrs));
  }
  std::vector<int64_t> Shape(ValueId v) const { return rw_.Type(v).shape; }
  ir::DType DType(ValueId v) const { return rw_.Type(v).dtype; }

  absl::StatusOr<ValueId> Slice(ValueId v, std::vector<int64_t> starts,
                                std::vector<int64_t> sizes) {
    ir::Attrs attrs;
    attrs.Set("starts", std::move(starts));
    attrs.Set("sizes", std::move(sizes));
    return Op(OpKind::kSlice, {v}, std::move(attrs));
  }
  absl::StatusOr<ValueId> Reshape(ValueId v, std::vector<int64_t> shape) {
    ir::Attrs attrs;
    attrs.Set("newShape", std::move(shape));
    return Op(OpKind::kReshape, {v}, std::move(attrs));
  }
  absl::StatusOr<ValueId> Concat(std::vector<ValueId> parts, int64_t axis) {
    if (parts.size() == 1) return parts[0];
    ir::Attrs attrs;
    attrs.Set("axis", axis);
    return Op(OpKind::kConcat, std::move(parts), std::move(attrs));
  }
  absl::StatusOr<ValueId> Zeros(std::vector<int64_t> shape, ir::DType dtype) {
    ValueId zero = rw_.Scalar(0, dtype);
    ir::Attrs attrs;
    attrs.Set("newShape", std::move(shape));
    return Op(OpKind::kExpand, {zero}, std::move(attrs));
  }
  // Row block `k` (of `hidden` rows) of a 2-D weight or a 1-D vector.
  absl::StatusOr<ValueId> Rows(ValueId v, int64_t k, int64_t hidden) {
    std::vector<int64_t> shape = Shape(v);
    std::vector<int64_t> starts(shape.size(), 0), sizes = shape;
    starts[0] = k * hidden;
    sizes[0] = hidden;
    return Slice(v, starts, sizes);
  }
  // `v` split into `count` equal pieces along `axis` (split's gradient is
  // one concat, where slices' would be a padded copy each).
  absl::StatusOr<std::vector<ValueId>> Split(ValueId v, int64_t count,
                                             int64_t axis) {
    if (count == 1) return std::vector<ValueId>{v};
    ir::Attrs attrs;
    attrs.Set("splits", count);
    attrs.Set("axis", axis);
    return rw_.AddMulti(OpKind::kSplit, {v}, std::move(attrs));
  }
  absl::StatusOr<ValueId> Add(ValueId a, ValueId b) {
    if (a == kNoValue) return b;
    if (b == kNoValue) return a;
    return Op(OpKind::kAdd, {a, b});
  }

  ir::GraphRewriter& rw_;
};

int GateIndex(const Spec& spec, char gate) {
  for (size_t i = 0; i < spec.gates.size(); ++i) {
    if (spec.gates[i] == gate) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<OpKind> ActivationKind(const std::string& name) {
  if (name == "sigmoid") return OpKind::kSigmoid;
  if (name == "tanh") return OpKind::kTanh;
  if (name == "relu") return OpKind::kRelu;
  return absl::InvalidArgumentError(StrCat("unknown activation '", name, "'"));
}

absl::StatusOr<Spec> ReadSpec(const ir::Node& node, bool lstm) {
  Spec spec;
  spec.hidden = node.attrs.GetInt("hiddenSize", 0);
  std::string layout = node.attrs.GetString("layout", lstm ? "iofg" : "zrn");
  spec.gates.assign(layout.begin(), layout.end());
  std::vector<std::string> names = node.attrs.GetStrings(
      "activations", lstm ? std::vector<std::string>{"sigmoid", "tanh", "tanh"}
                          : std::vector<std::string>{"sigmoid", "tanh"});
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(OpKind kind, ActivationKind(name));
    spec.activations.push_back(kind);
  }
  spec.reset_after = node.attrs.GetBool("resetAfter", true);
  return spec;
}

// The gates' projections fused: one matmul for every gate's W x (all the
// steps' at once for a sequence) and one for every gate's R h a step,
// each [B, G·H] with gate k in columns k·H..(k+1)·H (the layout's order).

// Transposed weight [cols, G·H] of a 2-D [G·H, cols] one.
absl::StatusOr<ValueId> Transposed(Builder& b, ValueId w) {
  ir::Attrs attrs;
  attrs.Set("permutation", std::vector<int64_t>{1, 0});
  return b.Op(OpKind::kTranspose, {w}, attrs);
}

// The gates of a [B, G·H] projection: [B, H] each, in the layout's order.
absl::StatusOr<std::vector<ValueId>> Gates(Builder& b, ValueId v,
                                           int64_t hidden) {
  return b.Split(v, b.Shape(v)[1] / hidden, 1);
}

// x [N, I] · W^T + bias (kNoValue: none): [N, G·H].
absl::StatusOr<ValueId> Project(Builder& b, ValueId x, ValueId wt,
                                ValueId bias) {
  ASSIGN_OR_RETURN(ValueId y, b.Op(OpKind::kMatmul, {x, wt}));
  return b.Add(y, bias);
}

// The most pieces split makes (engine/ops/split.cc).
constexpr int64_t kMaxSplitPieces = 4096;

// Each step's x W^T + bias [B, G·H]: one matmul over all T·B rows, split
// by step — unless the sequence has more steps than split makes pieces or
// the projection exceeds the tensor limit, then one matmul a step.
absl::StatusOr<std::vector<ValueId>> StepProjections(Builder& b, ValueId input,
                                                     ValueId flat, ValueId wt,
                                                     ValueId bias) {
  const std::vector<int64_t> in = b.Shape(input);  // [T, B, I]
  const int64_t steps = in[0], batch = in[1], gh = b.Shape(wt)[1];
  const int64_t bytes =
      steps * batch * gh * ir::RuntimeElementSize(b.DType(input));
  if (steps <= kMaxSplitPieces &&
      bytes <= b.rw_.limits().max_tensor_bytes) {
    ASSIGN_OR_RETURN(ValueId projected, Project(b, flat, wt, bias));
    return b.Split(projected, steps, 0);
  }
  std::vector<ValueId> out;
  for (int64_t t = 0; t < steps; ++t) {
    ASSIGN_OR_RETURN(ValueId x, b.Slice(input, {t, 0, 0}, {1, batch, in[2]}));
    ASSIGN_OR_RETURN(x, b.Reshape(x, {batch, in[2]}));
    ASSIGN_OR_RETURN(ValueId xw, Project(b, x, wt, bias));
    out.push_back(xw);
  }
  return out;
}

// The bias W x takes: b + rb for lstm, b for gru (whose rb goes with R h,
// inside the reset gate's product for n).
absl::StatusOr<ValueId> InputBias(Builder& b, const Params& p, bool lstm) {
  if (!lstm) return p.bias;
  return b.Add(p.bias, p.recurrent_bias);
}

// i = f(c p_i + (W x + b + rb)_i + (R h)_i) and so on, `xw` the step's
// input projection [B, 4H], `rt` R^T; returns {h', c'}.
absl::StatusOr<std::pair<ValueId, ValueId>> LstmStep(Builder& b, ValueId xw,
                                                     ValueId h, ValueId c,
                                                     ValueId rt,
                                                     const Params& p,
                                                     const Spec& spec) {
  const int64_t hidden = spec.hidden;
  ASSIGN_OR_RETURN(ValueId rh, b.Op(OpKind::kMatmul, {h, rt}));
  ASSIGN_OR_RETURN(ValueId all, b.Add(xw, rh));
  ASSIGN_OR_RETURN(std::vector<ValueId> gates, Gates(b, all, hidden));
  auto gate = [&](char name, OpKind activation,
                  int peephole) -> absl::StatusOr<ValueId> {
    ValueId sum = gates[GateIndex(spec, name)];
    if (peephole >= 0 && p.peephole != kNoValue) {
      ASSIGN_OR_RETURN(ValueId weights, b.Rows(p.peephole, peephole, hidden));
      ASSIGN_OR_RETURN(ValueId peek, b.Op(OpKind::kMul, {c, weights}));
      ASSIGN_OR_RETURN(sum, b.Add(peek, sum));
    }
    return b.Op(activation, {sum});
  };
  ASSIGN_OR_RETURN(ValueId i, gate('i', spec.activations[0], 0));
  ASSIGN_OR_RETURN(ValueId o, gate('o', spec.activations[0], 1));
  ASSIGN_OR_RETURN(ValueId f, gate('f', spec.activations[0], 2));
  ASSIGN_OR_RETURN(ValueId g, gate('g', spec.activations[1], -1));
  ASSIGN_OR_RETURN(ValueId fc, b.Op(OpKind::kMul, {f, c}));
  ASSIGN_OR_RETURN(ValueId ig, b.Op(OpKind::kMul, {i, g}));
  ASSIGN_OR_RETURN(ValueId c_next, b.Add(fc, ig));
  ASSIGN_OR_RETURN(ValueId hc, b.Op(spec.activations[2], {c_next}));
  ASSIGN_OR_RETURN(ValueId h_next, b.Op(OpKind::kMul, {o, hc}));
  return std::make_pair(h_next, c_next);
}

// z, r = f((W x + b) + (R h + rb)); n = g((W x + b)_n + r (R h + rb)_n)
// (resetAfter) or g((W x + b)_n + R_n (r h) + rb_n); h' = z h + n (1 - z).
// `xw` is the step's input projection [B, 3H], `rt` R^T.
absl::StatusOr<ValueId> GruStep(Builder& b, ValueId xw, ValueId h,
                                ValueId rt, const Params& p,
                                const Spec& spec) {
  const int64_t hidden = spec.hidden;
  ASSIGN_OR_RETURN(ValueId rh, b.Op(OpKind::kMatmul, {h, rt}));
  ASSIGN_OR_RETURN(rh, b.Add(rh, p.recurrent_bias));
  ASSIGN_OR_RETURN(std::vector<ValueId> x_gates, Gates(b, xw, hidden));
  ASSIGN_OR_RETURN(std::vector<ValueId> h_gates, Gates(b, rh, hidden));
  auto gate = [&](char name) -> absl::StatusOr<ValueId> {
    const int k = GateIndex(spec, name);
    ASSIGN_OR_RETURN(ValueId sum, b.Add(x_gates[k], h_gates[k]));
    return b.Op(spec.activations[0], {sum});
  };
  ASSIGN_OR_RETURN(ValueId z, gate('z'));
  ASSIGN_OR_RETURN(ValueId r, gate('r'));
  const ValueId xn = x_gates[GateIndex(spec, 'n')];
  ValueId candidate;
  if (spec.reset_after) {
    const ValueId hn = h_gates[GateIndex(spec, 'n')];
    ASSIGN_OR_RETURN(ValueId reset, b.Op(OpKind::kMul, {r, hn}));
    ASSIGN_OR_RETURN(candidate, b.Add(xn, reset));
  } else {
    const int64_t n = GateIndex(spec, 'n');
    ASSIGN_OR_RETURN(ValueId rt_n,
                     b.Slice(rt, {0, n * hidden}, {hidden, hidden}));
    ASSIGN_OR_RETURN(ValueId rh_in, b.Op(OpKind::kMul, {r, h}));
    ASSIGN_OR_RETURN(ValueId hn, b.Op(OpKind::kMatmul, {rh_in, rt_n}));
    ValueId rb_n = kNoValue;
    if (p.recurrent_bias != kNoValue) {
      ASSIGN_OR_RETURN(rb_n, b.Rows(p.recurrent_bias, n, hidden));
    }
    ASSIGN_OR_RETURN(hn, b.Add(hn, rb_n));
    ASSIGN_OR_RETURN(candidate, b.Add(xn, hn));
  }
  ASSIGN_OR_RETURN(ValueId n_value, b.Op(spec.activations[1], {candidate}));
  ASSIGN_OR_RETURN(ValueId zh, b.Op(OpKind::kMul, {z, h}));
  ASSIGN_OR_RETURN(ValueId one_minus,
                   b.Op(OpKind::kSub, {b.rw_.Scalar(1, b.DType(z)), z}));
  ASSIGN_OR_RETURN(ValueId nz, b.Op(OpKind::kMul, {n_value, one_minus}));
  return b.Add(zh, nz);
}

ValueId Operand(const ir::Node& node, int slot) {
  return slot < static_cast<int>(node.operands.size()) ? node.operands[slot]
                                                       : kNoValue;
}

// Direction d's 2-D slice of a [directions, ...] operand (kNoValue stays).
absl::StatusOr<ValueId> Direction(Builder& b, ValueId v, int64_t d) {
  if (v == kNoValue) return v;
  std::vector<int64_t> shape = b.Shape(v);
  std::vector<int64_t> starts(shape.size(), 0), sizes = shape;
  starts[0] = d;
  sizes[0] = 1;
  ASSIGN_OR_RETURN(ValueId one, b.Slice(v, starts, sizes));
  return b.Reshape(one, std::vector<int64_t>(shape.begin() + 1, shape.end()));
}

// The state after a step under step mask m [B, 1]: m·next + (1 - m)·kept,
// exactly `next` where m is 1 and `kept` where it is 0.
absl::StatusOr<ValueId> Masked(Builder& b, ValueId m, ValueId keep_share,
                               ValueId next, ValueId kept) {
  ASSIGN_OR_RETURN(ValueId taken, b.Op(OpKind::kMul, {m, next}));
  ASSIGN_OR_RETURN(ValueId held, b.Op(OpKind::kMul, {keep_share, kept}));
  return b.Add(taken, held);
}

// Runs a gru (lstm when `lstm`) over its steps; replaces the node. With a
// step mask ([steps, batch, 1]), a masked step keeps the state it found
// and places zeros in the output sequence.
absl::Status UnrollSequence(ir::GraphRewriter& rw, ir::NodeId id, bool lstm,
                            ValueId mask = kNoValue) {
  const ir::Node node = rw.graph().node(id);  // a copy: the graph grows
  Builder b(rw);
  ASSIGN_OR_RETURN(Spec spec, ReadSpec(node, lstm));
  ValueId input = node.operands[0];
  std::vector<int64_t> in_shape = b.Shape(input);
  const int64_t steps = in_shape[0], batch = in_shape[1], width = in_shape[2];
  const ir::DType dtype = b.DType(input);
  std::string direction = node.attrs.GetString("direction", "forward");
  int64_t directions = direction == "both" ? 2 : 1;
  const int state_slot = lstm ? 6 : 5;

  ASSIGN_OR_RETURN(const ValueId flat, b.Reshape(input, {steps * batch, width}));
  // Per step: the mask [B, 1] and 1 - mask, in the input's type.
  std::vector<ValueId> take(steps, kNoValue), keep(steps, kNoValue);
  if (mask != kNoValue) {
    if (b.Shape(mask) != std::vector<int64_t>{steps, batch, 1}) {
      return absl::InvalidArgumentError(StrCat(
          "the step mask must be [", steps, ", ", batch, ", 1], not ",
          ir::ShapeToString(b.Shape(mask))));
    }
    ir::Attrs cast;
    cast.Set("type", std::string(ir::DTypeName(dtype)));
    ASSIGN_OR_RETURN(ValueId typed, b.Op(OpKind::kCast, {mask}, cast));
    for (int64_t t = 0; t < steps; ++t) {
      ASSIGN_OR_RETURN(ValueId step, b.Slice(typed, {t, 0, 0}, {1, batch, 1}));
      ASSIGN_OR_RETURN(take[t], b.Reshape(step, {batch, 1}));
      ASSIGN_OR_RETURN(keep[t], b.Op(OpKind::kSub, {rw.Scalar(1, dtype),
                                                    take[t]}));
    }
  }
  std::vector<std::vector<ValueId>> sequence(steps);  // [t][d]: [1, 1, B, H]
  std::vector<ValueId> hiddens, cells;                // [1, B, H] each
  for (int64_t d = 0; d < directions; ++d) {
    bool backward = direction == "backward" || d == 1;
    Params p;
    ASSIGN_OR_RETURN(p.weight, Direction(b, node.operands[1], d));
    ASSIGN_OR_RETURN(p.recurrent, Direction(b, node.operands[2], d));
    ASSIGN_OR_RETURN(p.bias, Direction(b, Operand(node, 3), d));
    ASSIGN_OR_RETURN(p.recurrent_bias, Direction(b, Operand(node, 4), d));
    if (lstm) {
      ASSIGN_OR_RETURN(p.peephole, Direction(b, Operand(node, 5), d));
    }
    ASSIGN_OR_RETURN(ValueId h, Direction(b, Operand(node, state_slot), d));
    if (h == kNoValue) {
      ASSIGN_OR_RETURN(h, b.Zeros({batch, spec.hidden}, dtype));
    }
    ValueId c = kNoValue;
    if (lstm) {
      ASSIGN_OR_RETURN(c, Direction(b, Operand(node, 7), d));
      if (c == kNoValue) {
        ASSIGN_OR_RETURN(c, b.Zeros({batch, spec.hidden}, dtype));
      }
    }
    // Every step's W x + bias in one matmul: [T·B, G·H].
    ASSIGN_OR_RETURN(ValueId wt, Transposed(b, p.weight));
    ASSIGN_OR_RETURN(ValueId rt, Transposed(b, p.recurrent));
    ASSIGN_OR_RETURN(ValueId bias, InputBias(b, p, lstm));
    ASSIGN_OR_RETURN(std::vector<ValueId> per_step,
                     StepProjections(b, input, flat, wt, bias));
    for (int64_t s = 0; s < steps; ++s) {
      int64_t t = backward ? steps - 1 - s : s;
      const ValueId xw = per_step[t];
      ValueId h_next, c_next = kNoValue;
      if (lstm) {
        ASSIGN_OR_RETURN(auto hc, LstmStep(b, xw, h, c, rt, p, spec));
        h_next = hc.first;
        c_next = hc.second;
      } else {
        ASSIGN_OR_RETURN(h_next, GruStep(b, xw, h, rt, p, spec));
      }
      ValueId out = h_next;
      if (mask != kNoValue) {
        ASSIGN_OR_RETURN(h, Masked(b, take[t], keep[t], h_next, h));
        if (lstm) {
          ASSIGN_OR_RETURN(c, Masked(b, take[t], keep[t], c_next, c));
        }
        ASSIGN_OR_RETURN(out, b.Op(OpKind::kMul, {take[t], h_next}));
      } else {
        h = h_next;
        c = c_next;
      }
      ASSIGN_OR_RETURN(ValueId placed,
                       b.Reshape(out, {1, 1, batch, spec.hidden}));
      sequence[t].push_back(placed);
    }
    ASSIGN_OR_RETURN(ValueId hidden, b.Reshape(h, {1, batch, spec.hidden}));
    hiddens.push_back(hidden);
    if (lstm) {
      ASSIGN_OR_RETURN(ValueId cell, b.Reshape(c, {1, batch, spec.hidden}));
      cells.push_back(cell);
    }
  }
  std::vector<ValueId> results;
  ASSIGN_OR_RETURN(ValueId hidden, b.Concat(hiddens, 0));
  results.push_back(hidden);
  if (lstm) {
    ASSIGN_OR_RETURN(ValueId cell, b.Concat(cells, 0));
    results.push_back(cell);
  }
  if (node.outputs.size() > results.size()) {
    std::vector<ValueId> rows;
    for (int64_t t = 0; t < steps; ++t) {
      ASSIGN_OR_RETURN(ValueId row, b.Concat(sequence[t], 1));
      rows.push_back(row);
    }
    ASSIGN_OR_RETURN(ValueId all, b.Concat(rows, 0));
    results.push_back(all);
  }
  rw.Replace(id, results);
  return absl::OkStatus();
}

}  // namespace

absl::Status UnrollLstmCell(ir::GraphRewriter& rw, ir::NodeId id) {
  const ir::Node node = rw.graph().node(id);
  Builder b(rw);
  ASSIGN_OR_RETURN(Spec spec, ReadSpec(node, true));
  Params p{node.operands[1], node.operands[2], Operand(node, 5),
           Operand(node, 6), Operand(node, 7)};
  ASSIGN_OR_RETURN(ValueId wt, Transposed(b, p.weight));
  ASSIGN_OR_RETURN(ValueId rt, Transposed(b, p.recurrent));
  ASSIGN_OR_RETURN(ValueId bias, InputBias(b, p, true));
  ASSIGN_OR_RETURN(ValueId xw, Project(b, node.operands[0], wt, bias));
  ASSIGN_OR_RETURN(auto hc, LstmStep(b, xw, node.operands[3],
                                     node.operands[4], rt, p, spec));
  rw.Replace(id, {hc.first, hc.second});
  return absl::OkStatus();
}

absl::Status UnrollGruCell(ir::GraphRewriter& rw, ir::NodeId id) {
  const ir::Node node = rw.graph().node(id);
  Builder b(rw);
  ASSIGN_OR_RETURN(Spec spec, ReadSpec(node, false));
  Params p{node.operands[1], node.operands[2], Operand(node, 4),
           Operand(node, 5), kNoValue};
  ASSIGN_OR_RETURN(ValueId wt, Transposed(b, p.weight));
  ASSIGN_OR_RETURN(ValueId rt, Transposed(b, p.recurrent));
  ASSIGN_OR_RETURN(ValueId xw, Project(b, node.operands[0], wt, p.bias));
  ASSIGN_OR_RETURN(ValueId h, GruStep(b, xw, node.operands[3], rt, p, spec));
  rw.Replace(id, {h});
  return absl::OkStatus();
}

absl::Status UnrollLstm(ir::GraphRewriter& rw, ir::NodeId id) {
  return UnrollSequence(rw, id, true);
}

absl::Status UnrollGru(ir::GraphRewriter& rw, ir::NodeId id) {
  return UnrollSequence(rw, id, false);
}

absl::Status UnrollMasked(ir::GraphRewriter& rw, ir::NodeId id,
                          ir::ValueId mask) {
  const ir::OpKind kind = rw.graph().node(id).op->kind;
  if (kind != OpKind::kLstm && kind != OpKind::kGru) {
    return absl::InvalidArgumentError(
        StrCat(rw.graph().node(id).op->name, " runs over no sequence"));
  }
  return UnrollSequence(rw, id, kind == OpKind::kLstm, mask);
}

}  // namespace webnnm::ops
