// sqrt: y = the square root of x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SqrtGradient(GradientBuilder& g) {
  // d/dx sqrt(x) = 1 / (2 sqrt(x))
  ASSIGN_OR_RETURN(ValueId twice, g.MulScalar(g.y(), 2));
  return g.Set(0, g.Div(g.dy(), twice));
}

}  // namespace

const ir::OpDef& SqrtOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kSqrt, "sqrt", ir::kFloatTypes), SqrtGradient);
  return def;
}

}  // namespace webnnm::ops
