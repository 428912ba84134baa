// reduceVariance: the variance E[(x - E[x])^2] over `axes` (ERRATA 10f).
// Operand: input (float32, float16). Options: axes (default: every feature
// axis), keepDimensions (default true). Result: the input's type, reduced
// shape.
//
// Decomposes into reduceMean(mul(d, d)) with d = sub(x, reduceMean(x)): the
// two-pass form, which does not cancel catastrophically as E[x^2] - E[x]^2
// does.
#include "engine/ir/rewriter.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferReduceVariance(const InferContext& c) {
  int rank = c.operand(0).rank();
  std::vector<int64_t> all(rank);
  for (int i = 0; i < rank; ++i) all[i] = i;
  absl::StatusOr<std::vector<int>> axes = AxesAttr(c, "axes", all, rank);
  if (!axes.ok()) return axes.status();
  bool keep = c.attrs.GetBool("keepDimensions", true);
  return Result(c, ReducedType(c.operand(0), *axes, keep, c.operand(0).dtype));
}

absl::Status DecomposeReduceVariance(ir::GraphRewriter& g, int node) {
  const ir::Node& n = g.graph().node(node);
  ir::ValueId x = n.operands[0];
  std::vector<int64_t> all(g.Type(x).rank());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  ir::Attrs keep;
  keep.Set("axes", n.attrs.GetInts("axes", all));
  keep.Set("keepDimensions", true);
  ir::Attrs last = keep;
  last.Set("keepDimensions", n.attrs.GetBool("keepDimensions", true));
  absl::StatusOr<ir::ValueId> mean = g.Add(ir::OpKind::kReduceMean, {x}, keep);
  if (!mean.ok()) return mean.status();
  absl::StatusOr<ir::ValueId> d = g.Add(ir::OpKind::kSub, {x, *mean});
  if (!d.ok()) return d.status();
  absl::StatusOr<ir::ValueId> square = g.Add(ir::OpKind::kMul, {*d, *d});
  if (!square.ok()) return square.status();
  absl::StatusOr<ir::ValueId> variance =
      g.Add(ir::OpKind::kReduceMean, {*square}, last);
  if (!variance.ok()) return variance.status();
  g.Replace(node, {*variance});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& ReduceVarianceOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kReduceVariance,
      .name = "reduceVariance",
      .category = ir::OpCategory::kHighLevel,
      .operands = {{.name = "input", .types = ir::kFloatTypes}},
      .attrs = {{.name = "axes",
                 .kind = ir::AttrKind::kAxes,
                 .language_default = ir::LanguageDefault::kAllFeatureAxes},
                {.name = "keepDimensions", .kind = ir::AttrKind::kBool}},
      .infer = InferReduceVariance,
      .decompose = DecomposeReduceVariance};
  return def;
}

}  // namespace webnnm::ops
