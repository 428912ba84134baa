// maxPool2d: y = the largest element of each window.
// Operand: input (float32, float16, int8, uint8). See pool.h for the options
// and the result.
#include "engine/ops/pool.h"

namespace webnnm::ops {

const ir::OpDef& MaxPool2dOp() {
  static const ir::OpDef def =
      PoolOp(ir::OpKind::kMaxPool2d, "maxPool2d",
             {DType::kFloat32, DType::kFloat16, DType::kInt8, DType::kUint8});
  return def;
}

}  // namespace webnnm::ops
