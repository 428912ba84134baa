// l2Pool2d: y = the square root of the sum of squares of each window.
// Operand: input (float32, float16). See pool.h for the options and the
// result.
#include "engine/ops/pool.h"

namespace webnnm::ops {

const ir::OpDef& L2Pool2dOp() {
  static const ir::OpDef def =
      PoolOp(ir::OpKind::kL2Pool2d, "l2Pool2d", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
