// cumulativeSum: running totals along `axis`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axis (required), exclusive (default false: y_i includes x_i), reversed
// (default false: sums run from the high index down when true).
// Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status CumulativeSumGradient(GradientBuilder& g) {
  // Each input element adds to the outputs after it (before it, reversed):
  // its gradient sums the output gradients the other way round.
  ir::Attrs attrs = g.attrs();
  attrs.Set("reversed", !g.attrs().GetBool("reversed", false));
  return g.Set(0, g.Op(OpKind::kCumulativeSum, {g.dy()}, attrs));
}

absl::StatusOr<Types> InferCumulativeSum(const InferContext& c) {
  int rank = c.operand(0).rank();
  if (rank == 0) {
    return OperandError(0, "cumulativeSum needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", -1, rank);
  if (!axis.ok()) return axis.status();
  return InferSameAsInput(c);
}

}  // namespace

const ir::OpDef& CumulativeSumOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kCumulativeSum,
      .name = "cumulativeSum",
      .category = ir::OpCategory::kReduction,
      .operands = {{.name = "input", .types = kReduceSumTypes}},
      .attrs = {{.name = "axis", .kind = ir::AttrKind::kAxis, .required = true},
                {.name = "exclusive", .kind = ir::AttrKind::kBool},
                {.name = "reversed", .kind = ir::AttrKind::kBool}},
      .infer = InferCumulativeSum,
      .shape_preserving = true,
      .gradient = CumulativeSumGradient};
  return def;
}

}  // namespace webnnm::ops
