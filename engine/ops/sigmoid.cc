// sigmoid: y = 1 / (1 + e^-x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with Glorot.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& SigmoidOp() {
  static const ir::OpDef def =
      ActivationOp(ir::OpKind::kSigmoid, "sigmoid", ir::kFloatTypes,
                   ir::WeightInit::kGlorot);
  return def;
}

}  // namespace webnnm::ops
