// reduceProduct: y = the product of x over `axes`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axes, keepDimensions (see reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/reduce.h"

namespace webnnm::ops {

const ir::OpDef& ReduceProductOp() {
  static const ir::OpDef def =
      ReduceOp(ir::OpKind::kReduceProduct, "reduceProduct", kReduceSumTypes);
  return def;
}

}  // namespace webnnm::ops
