// max: y = max(a, b), element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& MaxOp() {
  static const ir::OpDef def =
      ArithmeticOp(ir::OpKind::kMax, "max", ir::ParamRole::kBias);
  return def;
}

}  // namespace webnnm::ops
