// sigmoid: y = 1 / (1 + e^-x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with Glorot.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SigmoidGradient(GradientBuilder& g) {
  // d/dx sigmoid(x) = y (1 - y)
  ASSIGN_OR_RETURN(ValueId complement, g.Sub(g.ScalarLike(1, g.y()), g.y()));
  return SetScaled(g, g.Mul(g.y(), complement));
}

}  // namespace

const ir::OpDef& SigmoidOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kSigmoid, "sigmoid",
                                ir::kFloatTypes, ir::WeightInit::kGlorot),
                   SigmoidGradient);
  return def;
}

}  // namespace webnnm::ops
