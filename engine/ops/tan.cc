// tan: y = tan(x), x in radians, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status TanGradient(GradientBuilder& g) {
  // d/dx tan(x) = 1 + tan(x)^2
  ASSIGN_OR_RETURN(ValueId square, g.Mul(g.y(), g.y()));
  return SetScaled(g, g.Add(square, g.ScalarLike(1, square)));
}

}  // namespace

const ir::OpDef& TanOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kTan, "tan", ir::kFloatTypes), TanGradient);
  return def;
}

}  // namespace webnnm::ops
