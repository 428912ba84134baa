// sub: y = a - b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& SubOp() {
  static const ir::OpDef def =
      ArithmeticOp(ir::OpKind::kSub, "sub", ir::ParamRole::kBias);
  return def;
}

}  // namespace webnnm::ops
