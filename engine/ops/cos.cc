// cos: y = cos(x), x in radians, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status CosGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(ValueId sin, g.Op(OpKind::kSin, {g.x(0)}));
  return SetScaled(g, g.Neg(sin));
}

}  // namespace

const ir::OpDef& CosOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kCos, "cos", ir::kFloatTypes), CosGradient);
  return def;
}

}  // namespace webnnm::ops
