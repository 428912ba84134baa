// logicalOr: y = 1 where a or b are non-zero, else 0,
// element-wise with broadcasting.
// Operands: a, b (uint8). Result: uint8, the broadcast shape.
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& LogicalOrOp() {
  static const ir::OpDef def = LogicalOp(ir::OpKind::kLogicalOr, "logicalOr");
  return def;
}

}  // namespace webnnm::ops
