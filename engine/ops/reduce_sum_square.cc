// reduceSumSquare: y = the sum of x^2 over `axes`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axes, keepDimensions (see reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceSumSquareGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // d/dx sum x^2 = 2x
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId twice, g.MulScalar(g.x(0), 2));
  return g.Set(0, g.Mul(spread, twice));
}

}  // namespace

const ir::OpDef& ReduceSumSquareOp() {
  static const ir::OpDef def =
      WithGradient(ReduceOp(ir::OpKind::kReduceSumSquare, "reduceSumSquare",
                            kReduceSumTypes),
                   ReduceSumSquareGradient);
  return def;
}

}  // namespace webnnm::ops
