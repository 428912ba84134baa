// reciprocal: y = 1 / x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& ReciprocalOp() {
  static const ir::OpDef def =
      UnaryOp(ir::OpKind::kReciprocal, "reciprocal", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
