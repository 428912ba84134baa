// elu: y = x if x >= 0 else alpha * (e^x - 1), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 1.0).
// Weights before it are initialised with He.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& EluOp() {
  static const ir::OpDef def = ActivationOp(
      ir::OpKind::kElu, "elu", ir::kFloatTypes, ir::WeightInit::kHe,
      {{.name = "alpha", .kind = ir::AttrKind::kFloat}});
  return def;
}

}  // namespace webnnm::ops
