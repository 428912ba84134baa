// gelu: y = x * Phi(x), Phi the standard normal CDF, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with He.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& GeluOp() {
  static const ir::OpDef def = ActivationOp(
      ir::OpKind::kGelu, "gelu", ir::kFloatTypes, ir::WeightInit::kHe);
  return def;
}

}  // namespace webnnm::ops
