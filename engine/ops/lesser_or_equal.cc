// lesserOrEqual: y = 1 where a <= b, else 0, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: uint8, the broadcast shape.
#include "engine/ops/binary.h"

namespace webnnm::ops {

const ir::OpDef& LesserOrEqualOp() {
  static const ir::OpDef def =
      ComparisonOp(ir::OpKind::kLesserOrEqual, "lesserOrEqual");
  return def;
}

}  // namespace webnnm::ops
