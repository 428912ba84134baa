// reduceLogSumExp: y = ln of the sum of e^x (computed stably, ERRATA 14a) over
// `axes`. Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceLogSumExpGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // d/dx log(sum exp x) = exp(x - y) (softmax over the axes)
  const std::vector<int64_t>& shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId result, g.ExpandReduced(g.y(), shape, axes));
  ASSIGN_OR_RETURN(ValueId shifted, g.Sub(g.x(0), result));
  ASSIGN_OR_RETURN(ValueId weights, g.Op(OpKind::kExp, {shifted}));
  return g.Set(0, g.Mul(spread, weights));
}

}  // namespace

const ir::OpDef& ReduceLogSumExpOp() {
  static const ir::OpDef def =
      WithGradient(ReduceOp(ir::OpKind::kReduceLogSumExp, "reduceLogSumExp",
                            ir::kFloatTypes),
                   ReduceLogSumExpGradient);
  return def;
}

}  // namespace webnnm::ops
