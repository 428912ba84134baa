// averagePool2d: y = the mean of each window (padding not counted).
// Operand: input (float32, float16). See pool.h for the options and the
// result.
#include "engine/ops/pool.h"

namespace webnnm::ops {

const ir::OpDef& AveragePool2dOp() {
  static const ir::OpDef def =
      PoolOp(ir::OpKind::kAveragePool2d, "averagePool2d", ir::kFloatTypes);
  return def;
}

}  // namespace webnnm::ops
