// leakyRelu: y = x if x >= 0 else alpha * x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 0.01).
// Weights before it are initialised with He.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& LeakyReluOp() {
  static const ir::OpDef def = ActivationOp(
      ir::OpKind::kLeakyRelu, "leakyRelu", ir::kFloatTypes, ir::WeightInit::kHe,
      {{.name = "alpha", .kind = ir::AttrKind::kFloat}});
  return def;
}

}  // namespace webnnm::ops
