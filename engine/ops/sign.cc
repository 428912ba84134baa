// sign: y = -1, 0 or 1 by the sign of x, element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& SignOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kSign, "sign", ir::kSignedTypes), ZeroGradient);
  return def;
}

}  // namespace webnnm::ops
