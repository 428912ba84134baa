// attend: scaled dot-product attention (ERRATA 10f).
//   Q = x q, K = s k, V = s v, with s = x (self-attention) or `to`
//   (cross-attention); per head h: softmax(Q_h K_h^T / sqrt(d_h)) V_h; the
//   heads' results are concatenated along the features.
// Operands: input x ([batch, tokens, d]), q ([d, dk]), k ([ds, dk]),
// v ([ds, dv]) — trainable projections, Glorot — and to (optional,
// [batch, tokens', ds]). Options: heads (default 1; divides dk and dv),
// causal (default false: when true a token attends only to itself and
// earlier tokens). Result: x's type, [batch, tokens, dv]; dv comes from the
// layer's declared shape (else d), and dk = dv.
//
// Decomposes into matmul, reshape, transpose, mul, softmax (and for causal
// attention expand, triangular and add).
#include <cmath>

#include "engine/base/status_macros.h"
#include "engine/ir/rewriter.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {
namespace {

constexpr int kQ = 1, kK = 2, kV = 3, kTo = 4;

const TensorType& Source(const InferContext& c) {
  return c.has(kTo) ? c.operand(kTo) : c.operand(0);
}

absl::StatusOr<Types> InferAttend(const InferContext& c) {
  absl::Status status = CheckRankIs(c, 0, 3);
  if (status.ok() && c.has(kTo)) status = CheckRankIs(c, kTo, 3);
  for (int slot : {kQ, kK, kV}) {
    if (status.ok()) status = CheckRankIs(c, slot, 2);
  }
  if (!status.ok()) return status;
  const TensorType& x = c.operand(0);
  const TensorType& s = Source(c);
  const TensorType& q = c.operand(kQ);
  const TensorType& k = c.operand(kK);
  const TensorType& v = c.operand(kV);
  if (s.shape[0] != x.shape[0]) {
    return OperandError(kTo, "attend: 'to' must have the input's batch");
  }
  if (q.shape[0] != x.shape[2]) {
    return OperandError(
        kQ, StrCat("attend q must have ", x.shape[2],
                   " rows (the input's features), not ", q.shape[0]));
  }
  if (k.shape[0] != s.shape[2] || v.shape[0] != s.shape[2]) {
    return OperandError(k.shape[0] != s.shape[2] ? kK : kV,
                        StrCat("attend k and v must have ", s.shape[2],
                               " rows (the source's features)"));
  }
  if (k.shape[1] != q.shape[1]) {
    return OperandError(kK, StrCat("attend k has ", k.shape[1],
                                   " columns but q has ", q.shape[1]));
  }
  int64_t heads = c.attrs.GetInt("heads", 1);
  if (heads < 1 || q.shape[1] % heads != 0 || v.shape[1] % heads != 0) {
    return AttrError(
        "heads", StrCat("attend heads ", heads, " must divide the query size ",
                        q.shape[1], " and the value size ", v.shape[1]));
  }
  if (c.attrs.GetBool("causal", false) && s.shape[1] != x.shape[1]) {
    return AttrError("causal",
                     "causal attention needs a source as long as "
                     "the input");
  }
  TensorType out = x;
  out.shape[2] = v.shape[1];
  out.channel_axis = -1;
  if (x.has_names() && v.shape[1] != x.shape[2]) {
    // The input's feature name still fits when the size is kept.
    out.names[2] = "features";
  }
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveAttend(const InferContext& c,
                                       const TensorType* expected, int slot) {
  if (!c.has(0) || c.operand(0).rank() != 3 ||
      (c.has(kTo) && c.operand(kTo).rank() != 3)) {
    return absl::InvalidArgumentError(
        "attend needs inputs of shape [batch, tokens, features]");
  }
  // Projections given (a constant, another layer's value) are matrices.
  for (int given : {kQ, kK, kV}) {
    if (c.has(given)) RETURN_IF_ERROR(CheckRankIs(c, given, 2));
  }
  int64_t d = c.operand(0).shape[2];
  int64_t ds = Source(c).shape[2];
  // The value size: declared by the layer's shape, else the model size.
  int64_t dv = c.has(kV) ? c.operand(kV).shape[1]
               : expected != nullptr && expected->rank() >= 1
                   ? expected->shape[expected->rank() - 1]
                   : d;
  int64_t dk = c.has(kQ)   ? c.operand(kQ).shape[1]
               : c.has(kK) ? c.operand(kK).shape[1]
                           : dv;
  if (ir::IsSymbolic(d) || ir::IsSymbolic(ds) || ir::IsSymbolic(dv)) {
    return absl::InvalidArgumentError(
        "attend projections need fixed feature sizes");
  }
  TensorType p;
  switch (slot) {
    case kQ:
      p.shape = {d, dk};
      break;
    case kK:
      p.shape = {ds, dk};
      break;
    case kV:
      p.shape = {ds, dv};
      break;
    default:
      return absl::InvalidArgumentError("attend cannot infer this operand");
  }
  return p;
}

// [B, T, n] -> [B, heads, T, n / heads] (or [B, heads, n / heads, T] when
// `keys`).
absl::StatusOr<ir::ValueId> SplitHeads(ir::GraphRewriter& g, ir::ValueId t,
                                       int64_t heads, bool keys) {
  std::vector<int64_t> shape = g.Type(t).shape;
  ir::Attrs reshape;
  reshape.Set("newShape", std::vector<int64_t>{shape[0], shape[1], heads,
                                               shape[2] / heads});
  absl::StatusOr<ir::ValueId> split = g.Add(ir::OpKind::kReshape, {t}, reshape);
  if (!split.ok()) return split;
  ir::Attrs perm;
  perm.Set("permutation", keys ? std::vector<int64_t>{0, 2, 3, 1}
                               : std::vector<int64_t>{0, 2, 1, 3});
  return g.Add(ir::OpKind::kTranspose, {*split}, perm);
}

absl::Status DecomposeAttend(ir::GraphRewriter& g, int node) {
  const ir::Node& n = g.graph().node(node);
  ir::ValueId x = n.operands[0];
  ir::ValueId s = g.Operand(node, kTo) == ir::kNoValue ? x : n.operands[kTo];
  int64_t heads = n.attrs.GetInt("heads", 1);
  bool causal = n.attrs.GetBool("causal", false);
  ir::ValueId qw = n.operands[kQ], kw = n.operands[kK], vw = n.operands[kV];
  DType type = g.Type(x).dtype;
  absl::StatusOr<ir::ValueId> q = g.Add(ir::OpKind::kMatmul, {x, qw});
  if (!q.ok()) return q.status();
  absl::StatusOr<ir::ValueId> k = g.Add(ir::OpKind::kMatmul, {s, kw});
  if (!k.ok()) return k.status();
  absl::StatusOr<ir::ValueId> v = g.Add(ir::OpKind::kMatmul, {s, vw});
  if (!v.ok()) return v.status();
  std::vector<int64_t> out_shape = g.Type(*v).shape;
  out_shape[1] = g.Type(x).shape[1];
  int64_t head_size = g.Type(*q).shape[2] / heads;
  if (heads > 1) {
    q = SplitHeads(g, *q, heads, false);
    if (q.ok()) k = SplitHeads(g, *k, heads, true);
    if (k.ok()) v = SplitHeads(g, *v, heads, false);
    if (!v.ok()) return v.status();
  } else {
    ir::Attrs perm;
    perm.Set("permutation", std::vector<int64_t>{0, 2, 1});
    k = g.Add(ir::OpKind::kTranspose, {*k}, perm);
    if (!k.ok()) return k.status();
  }
  absl::StatusOr<ir::ValueId> scores = g.Add(ir::OpKind::kMatmul, {*q, *k});
  if (!scores.ok()) return scores.status();
  scores = g.Add(ir::OpKind::kMul,
                 {*scores, g.Scalar(1.0 / std::sqrt(double(head_size)), type)});
  if (!scores.ok()) return scores.status();
  const std::vector<int64_t>& score_shape = g.Type(*scores).shape;
  int rank = static_cast<int>(score_shape.size());
  if (causal) {
    // -1e4 above the diagonal (large enough to vanish in softmax, small
    // enough for float16), 0 elsewhere.
    ir::Attrs expand;
    expand.Set("newShape", std::vector<int64_t>{score_shape[rank - 2],
                                                score_shape[rank - 1]});
    absl::StatusOr<ir::ValueId> full =
        g.Add(ir::OpKind::kExpand, {g.Scalar(-1e4, type)}, expand);
    if (!full.ok()) return full.status();
    ir::Attrs upper;
    upper.Set("upper", true);
    upper.Set("diagonal", int64_t{1});
    absl::StatusOr<ir::ValueId> mask =
        g.Add(ir::OpKind::kTriangular, {*full}, upper);
    if (!mask.ok()) return mask.status();
    scores = g.Add(ir::OpKind::kAdd, {*scores, *mask});
    if (!scores.ok()) return scores.status();
  }
  ir::Attrs axis;
  axis.Set("axis", int64_t{rank - 1});
  absl::StatusOr<ir::ValueId> weights =
      g.Add(ir::OpKind::kSoftmax, {*scores}, axis);
  if (!weights.ok()) return weights.status();
  absl::StatusOr<ir::ValueId> y = g.Add(ir::OpKind::kMatmul, {*weights, *v});
  if (!y.ok()) return y.status();
  if (heads > 1) {
    ir::Attrs perm;
    perm.Set("permutation", std::vector<int64_t>{0, 2, 1, 3});
    y = g.Add(ir::OpKind::kTranspose, {*y}, perm);
    if (!y.ok()) return y.status();
    ir::Attrs reshape;
    reshape.Set("newShape", out_shape);
    y = g.Add(ir::OpKind::kReshape, {*y}, reshape);
    if (!y.ok()) return y.status();
  }
  g.Replace(node, {*y});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& AttendOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kAttend,
      .name = "attend",
      .category = ir::OpCategory::kHighLevel,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "q",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
                   {.name = "k",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
                   {.name = "v",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
                   {.name = "to", .types = ir::kFloatTypes, .optional = true}},
      .attrs = {{.name = "heads", .kind = ir::AttrKind::kInt},
                {.name = "causal", .kind = ir::AttrKind::kBool}},
      .infer = InferAttend,
      .solve = SolveAttend,
      .decompose = DecomposeAttend};
  return def;
}

}  // namespace webnnm::ops
