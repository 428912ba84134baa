// erf: y = the Gauss error function of x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ErfGradient(GradientBuilder& g) {
  // d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
  ASSIGN_OR_RETURN(ValueId square, g.Mul(g.x(0), g.x(0)));
  ASSIGN_OR_RETURN(ValueId negated, g.Neg(square));
  ASSIGN_OR_RETURN(ValueId e, g.Op(OpKind::kExp, {negated}));
  return SetScaled(g, g.MulScalar(e, 1.1283791670955126));
}

}  // namespace

const ir::OpDef& ErfOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kErf, "erf", ir::kFloatTypes), ErfGradient);
  return def;
}

}  // namespace webnnm::ops
