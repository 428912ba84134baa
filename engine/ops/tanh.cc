// tanh: y = (e^x - e^-x) / (e^x + e^-x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with Glorot.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& TanhOp() {
  static const ir::OpDef def = ActivationOp(
      ir::OpKind::kTanh, "tanh", ir::kFloatTypes, ir::WeightInit::kGlorot);
  return def;
}

}  // namespace webnnm::ops
