// neg: y = -x, element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& NegOp() {
  static const ir::OpDef def =
      UnaryOp(ir::OpKind::kNeg, "neg", ir::kSignedTypes);
  return def;
}

}  // namespace webnnm::ops
