// cos: y = cos(x), x in radians, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& CosOp() {
  static const ir::OpDef def =
      UnaryOp(ir::OpKind::kCos, "cos", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
