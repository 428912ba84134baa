// reduceL1: y = the sum of |x| over `axes`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axes, keepDimensions (see reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/reduce.h"

namespace webnnm::ops {

const ir::OpDef& ReduceL1Op() {
  static const ir::OpDef def = [] {
    ir::OpDef d = ReduceOp(ir::OpKind::kReduceL1, "reduceL1", kReduceSumTypes);
    d.aliases = {"reduce1"};  // the specification's prose spelling
    return d;
  }();
  return def;
}

}  // namespace webnnm::ops
