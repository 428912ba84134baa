// hardSwish: y = x * max(0, min(6, x + 3)) / 6, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with He.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& HardSwishOp() {
  static const ir::OpDef def =
      ActivationOp(ir::OpKind::kHardSwish, "hardSwish", ir::kFloatTypes,
                   ir::WeightInit::kHe);
  return def;
}

}  // namespace webnnm::ops
