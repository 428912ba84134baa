// sin: y = sin(x), x in radians, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SinGradient(GradientBuilder& g) {
  return SetScaled(g, g.Op(OpKind::kCos, {g.x(0)}));
}

}  // namespace

const ir::OpDef& SinOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kSin, "sin", ir::kFloatTypes), SinGradient);
  return def;
}

}  // namespace webnnm::ops
