// reduceMean: y = the mean of x over `axes`.
// Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceMeanGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  double count = static_cast<double>(CountAt(g.shape(g.x(0)), axes));
  return g.Set(0, g.MulScalar(spread, 1.0 / count));
}

}  // namespace

const ir::OpDef& ReduceMeanOp() {
  static const ir::OpDef def = WithGradient(
      ReduceOp(ir::OpKind::kReduceMean, "reduceMean", ir::kFloatTypes),
      ReduceMeanGradient);
  return def;
}

}  // namespace webnnm::ops
