// isInfinite: y = 1 where x is +/-infinity, else 0, element-wise.
// Operand: input (float32, float16). Result: uint8 of the input's shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& IsInfiniteOp() {
  static const ir::OpDef def =
      PredicateOp(ir::OpKind::kIsInfinite, "isInfinite");
  return def;
}

}  // namespace webnnm::ops
