// reduceSum: y = the sum of x over `axes`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axes, keepDimensions (see reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceSumGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  return g.Set(0, spread);
}

}  // namespace

const ir::OpDef& ReduceSumOp() {
  static const ir::OpDef def = WithGradient(
      ReduceOp(ir::OpKind::kReduceSum, "reduceSum", kReduceSumTypes),
      ReduceSumGradient);
  return def;
}

}  // namespace webnnm::ops
