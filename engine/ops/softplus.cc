// softplus: y = ln(1 + e^x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SoftplusGradient(GradientBuilder& g) {
  return SetScaled(g, g.Op(OpKind::kSigmoid, {g.x(0)}));
}

}  // namespace

const ir::OpDef& SoftplusOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kSoftplus, "softplus",
                                ir::kFloatTypes, ir::WeightInit::kHe),
                   SoftplusGradient);
  return def;
}

}  // namespace webnnm::ops
