// reduceLogSum: y = ln of the sum of x over `axes`.
// Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceLogSumGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // d/dx log(sum x) = 1 / sum x = 1 / exp(y)
  const std::vector<int64_t>& shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId sum, g.Op(OpKind::kExp, {g.y()}));
  ASSIGN_OR_RETURN(ValueId sums, g.ExpandReduced(sum, shape, axes));
  return g.Set(0, g.Div(spread, sums));
}

}  // namespace

const ir::OpDef& ReduceLogSumOp() {
  static const ir::OpDef def = WithGradient(
      ReduceOp(ir::OpKind::kReduceLogSum, "reduceLogSum", ir::kFloatTypes),
      ReduceLogSumGradient);
  return def;
}

}  // namespace webnnm::ops
