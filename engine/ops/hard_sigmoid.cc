// hardSigmoid: y = max(0, min(1, alpha * x + beta)), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 0.2), beta (default 0.5).
// Weights before it are initialised with Glorot.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& HardSigmoidOp() {
  static const ir::OpDef def =
      ActivationOp(ir::OpKind::kHardSigmoid, "hardSigmoid", ir::kFloatTypes,
                   ir::WeightInit::kGlorot,
                   {{.name = "alpha", .kind = ir::AttrKind::kFloat},
                    {.name = "beta", .kind = ir::AttrKind::kFloat}});
  return def;
}

}  // namespace webnnm::ops
