// logicalXor: y = 1 where exactly one of a and b is non-zero, else 0,
// element-wise with broadcasting.
// Operands: a, b (uint8). Result: uint8, the broadcast shape.
// Alias: logicalXOr (ERRATA 7).
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& LogicalXorOp() {
  static const ir::OpDef def = [] {
    ir::OpDef d = LogicalOp(ir::OpKind::kLogicalXor, "logicalXor");
    d.aliases = {"logicalXOr"};  // the specification's prose spells it so
    return d;
  }();
  return def;
}

}  // namespace webnnm::ops
