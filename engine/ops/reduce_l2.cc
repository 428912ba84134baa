// reduceL2: y = the square root of the sum of x^2 over `axes`.
// Operand: input (float32, float16). Options: axes, keepDimensions (see
// reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/reduce.h"

namespace webnnm::ops {

const ir::OpDef& ReduceL2Op() {
  static const ir::OpDef def = [] {
    ir::OpDef d = ReduceOp(ir::OpKind::kReduceL2, "reduceL2", ir::kFloatTypes);
    d.aliases = {"reduce2"};  // the specification's prose spelling
    return d;
  }();
  return def;
}

}  // namespace webnnm::ops
