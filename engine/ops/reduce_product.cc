// reduceProduct: y = the product of x over `axes`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axes, keepDimensions (see reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceProductGradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // d/dx prod x = prod / x (an input of exactly zero gives NaN or infinity,
  // as the product of the others would need a second pass).
  const std::vector<int64_t>& shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId product, g.ExpandReduced(g.y(), shape, axes));
  ASSIGN_OR_RETURN(ValueId scaled, g.Mul(spread, product));
  return g.Set(0, g.Div(scaled, g.x(0)));
}

}  // namespace

const ir::OpDef& ReduceProductOp() {
  static const ir::OpDef def = WithGradient(
      ReduceOp(ir::OpKind::kReduceProduct, "reduceProduct", kReduceSumTypes),
      ReduceProductGradient);
  return def;
}

}  // namespace webnnm::ops
