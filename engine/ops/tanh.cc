// tanh: y = (e^x - e^-x) / (e^x + e^-x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with Glorot.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status TanhGradient(GradientBuilder& g) {
  // d/dx tanh(x) = 1 - tanh(x)^2
  ASSIGN_OR_RETURN(ValueId square, g.Mul(g.y(), g.y()));
  return SetScaled(g, g.Sub(g.ScalarLike(1, square), square));
}

}  // namespace

const ir::OpDef& TanhOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kTanh, "tanh", ir::kFloatTypes,
                                ir::WeightInit::kGlorot),
                   TanhGradient);
  return def;
}

}  // namespace webnnm::ops
