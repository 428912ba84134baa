// softplus: y = ln(1 + e^x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with He.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& SoftplusOp() {
  static const ir::OpDef def = ActivationOp(
      ir::OpKind::kSoftplus, "softplus", ir::kFloatTypes, ir::WeightInit::kHe);
  return def;
}

}  // namespace webnnm::ops
