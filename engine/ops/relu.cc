// relu: y = max(0, x), element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape. Weights before it are initialised with He.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& ReluOp() {
  static const ir::OpDef def = ActivationOp(
      ir::OpKind::kRelu, "relu", ir::kSignedTypes, ir::WeightInit::kHe);
  return def;
}

}  // namespace webnnm::ops
