// erf: y = the Gauss error function of x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& ErfOp() {
  static const ir::OpDef def =
      UnaryOp(ir::OpKind::kErf, "erf", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
