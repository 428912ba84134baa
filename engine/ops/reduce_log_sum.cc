// reduceLogSum: y = ln of the sum of x over `axes`.
// Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/reduce.h"

namespace webnnm::ops {

const ir::OpDef& ReduceLogSumOp() {
  static const ir::OpDef def =
      ReduceOp(ir::OpKind::kReduceLogSum, "reduceLogSum", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
