// mul: y = a * b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to ones.
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& MulOp() {
  static const ir::OpDef def =
      ArithmeticOp(ir::OpKind::kMul, "mul", ir::ParamRole::kScale);
  return def;
}

}  // namespace webnnm::ops
