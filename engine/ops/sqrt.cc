// sqrt: y = the square root of x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& SqrtOp() {
  static const ir::OpDef def =
      UnaryOp(ir::OpKind::kSqrt, "sqrt", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
