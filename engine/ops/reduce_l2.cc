// reduceL2: y = the square root of the sum of x^2 over `axes`.
// Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceL2Gradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // d/dx sqrt(sum x^2) = x / y (zero where y = 0, as PyTorch's norm).
  const std::vector<int64_t>& shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId norm, g.ExpandReduced(g.y(), shape, axes));
  ASSIGN_OR_RETURN(ValueId nonzero,
                   CompareScalar(g, OpKind::kGreater, norm, 0));
  ASSIGN_OR_RETURN(ValueId safe, g.Where(nonzero, norm, g.ScalarLike(1, norm)));
  ASSIGN_OR_RETURN(ValueId ratio, g.Div(g.x(0), safe));
  ASSIGN_OR_RETURN(ValueId grad, g.Mul(spread, ratio));
  return g.Set(0, g.WhereOrZero(nonzero, grad));
}

}  // namespace

const ir::OpDef& ReduceL2Op() {
  static const ir::OpDef def = WithGradient(
      [] {
        ir::OpDef d =
            ReduceOp(ir::OpKind::kReduceL2, "reduceL2", ir::kFloatTypes);
        d.aliases = {"reduce2"};  // the specification's prose spelling
        return d;
      }(),
      ReduceL2Gradient);
  return def;
}

}  // namespace webnnm::ops
