// reduceMax: y = the largest x over `axes`.
// Operand: input (any numeric type). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

const ir::OpDef& ReduceMaxOp() {
  static const ir::OpDef def = WithGradient(
      ReduceOp(ir::OpKind::kReduceMax, "reduceMax", ir::kNumericTypes),
      ExtremeReductionGradient);
  return def;
}

}  // namespace webnnm::ops
