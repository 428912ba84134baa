// logicalNot: y = 1 where x is 0, else 0, element-wise.
// Operand: a (uint8). Result: uint8 of the input's shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& LogicalNotOp() {
  static const ir::OpDef def = [] {
    ir::OpDef d =
        UnaryOp(ir::OpKind::kLogicalNot, "logicalNot", {DType::kUint8});
    d.category = ir::OpCategory::kLogical;
    d.operands[0].name = "a";  // WebNN's name for it
    return d;
  }();
  return def;
}

}  // namespace webnnm::ops
