// reduceLogSumExp: y = ln of the sum of e^x (computed stably, ERRATA 14a) over
// `axes`. Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/reduce.h"

namespace webnnm::ops {

const ir::OpDef& ReduceLogSumExpOp() {
  static const ir::OpDef def = ReduceOp(ir::OpKind::kReduceLogSumExp,
                                        "reduceLogSumExp", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
