// reciprocal: y = 1 / x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ReciprocalGradient(GradientBuilder& g) {
  // d/dx 1/x = -1/x^2 = -y^2
  ASSIGN_OR_RETURN(ValueId square, g.Mul(g.y(), g.y()));
  ASSIGN_OR_RETURN(ValueId scaled, g.Mul(g.dy(), square));
  return g.Set(0, g.Neg(scaled));
}

}  // namespace

const ir::OpDef& ReciprocalOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kReciprocal, "reciprocal", ir::kFloatTypes),
      ReciprocalGradient);
  return def;
}

}  // namespace webnnm::ops
