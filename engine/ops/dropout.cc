// dropout: inverted dropout (ERRATA 10f). In training each element is kept
// with probability 1 - p and scaled by 1 / (1 - p), else zeroed; outside
// training it is the identity.
// Operand: input (float32, float16). Option: p (required, 0 < p < 1; also
// written positionally: dropout(0.2)). Result: the input's type and shape.
//
// Decomposes into
//   keep = cast(greaterOrEqual(randomUniform(x), p))
//   y    = mul(mul(x, keep), 1 / (1 - p))
// with y's inference alias set to x, so inference and test graphs skip it.
#include "engine/ir/rewriter.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferDropout(const InferContext& c) {
  double p = c.attrs.GetFloat("p", 0.5);
  if (!(p > 0 && p < 1)) {
    return AttrError("p", StrCat("dropout p must be between 0 and 1 "
                                 "(exclusive), not ",
                                 p));
  }
  return InferSameAsInput(c);
}

absl::Status DecomposeDropout(ir::GraphRewriter& g, int node) {
  ir::ValueId x = g.Operand(node, 0);
  DType type = g.Type(x).dtype;
  double p = g.graph().node(node).attrs.GetFloat("p", 0.5);
  absl::StatusOr<ir::ValueId> u = g.Add(ir::OpKind::kRandomUniform, {x});
  if (!u.ok()) return u.status();
  absl::StatusOr<ir::ValueId> keep =
      g.Add(ir::OpKind::kGreaterOrEqual, {*u, g.Scalar(p, type)});
  if (!keep.ok()) return keep.status();
  ir::Attrs cast;
  cast.Set("type", std::string(ir::DTypeName(type)));
  absl::StatusOr<ir::ValueId> mask = g.Add(ir::OpKind::kCast, {*keep}, cast);
  if (!mask.ok()) return mask.status();
  absl::StatusOr<ir::ValueId> kept = g.Add(ir::OpKind::kMul, {x, *mask});
  if (!kept.ok()) return kept.status();
  absl::StatusOr<ir::ValueId> y =
      g.Add(ir::OpKind::kMul, {*kept, g.Scalar(1.0 / (1.0 - p), type)});
  if (!y.ok()) return y.status();
  g.graph().node(g.graph().value(*y).producer).inference_alias = x;
  g.Replace(node, {*y});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& DropoutOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kDropout,
      .name = "dropout",
      .category = ir::OpCategory::kHighLevel,
      .operands = {{.name = "input", .types = ir::kFloatTypes}},
      .attrs = {{.name = "p", .kind = ir::AttrKind::kFloat, .required = true}},
      .infer = InferDropout,
      .shape_preserving = true,
      .positional_attr = "p",
      .decompose = DecomposeDropout};
  return def;
}

}  // namespace webnnm::ops
