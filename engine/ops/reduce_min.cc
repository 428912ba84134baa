// reduceMin: y = the smallest x over `axes`.
// Operand: input (any numeric type). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceMinGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // The extreme elements share the gradient equally (PyTorch's amax/amin).
  const std::vector<int64_t>& shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId extreme, g.ExpandReduced(g.y(), shape, axes));
  ASSIGN_OR_RETURN(ValueId hit, g.Op(OpKind::kEqual, {g.x(0), extreme}));
  ASSIGN_OR_RETURN(ValueId mask, g.Cast(hit, g.type(g.x(0)).dtype));
  ASSIGN_OR_RETURN(ValueId count, g.ReduceSum(mask, axes, true));
  ASSIGN_OR_RETURN(ValueId shared, g.Div(spread, count));
  return g.Set(0, g.Mul(shared, mask));
}

}  // namespace

const ir::OpDef& ReduceMinOp() {
  static const ir::OpDef def = WithGradient(
      ReduceOp(ir::OpKind::kReduceMin, "reduceMin", ir::kNumericTypes),
      ReduceMinGradient);
  return def;
}

}  // namespace webnnm::ops
