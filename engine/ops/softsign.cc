// softsign: y = x / (1 + |x|), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with Glorot.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& SoftsignOp() {
  static const ir::OpDef def =
      ActivationOp(ir::OpKind::kSoftsign, "softsign", ir::kFloatTypes,
                   ir::WeightInit::kGlorot);
  return def;
}

}  // namespace webnnm::ops
