// logicalAnd: y = 1 where a and b are non-zero, else 0,
// element-wise with broadcasting.
// Operands: a, b (uint8). Result: uint8, the broadcast shape.
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& LogicalAndOp() {
  static const ir::OpDef def = LogicalOp(ir::OpKind::kLogicalAnd, "logicalAnd");
  return def;
}

}  // namespace webnnm::ops
