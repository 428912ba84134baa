// floor: y = the largest integer <= x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& FloorOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kFloor, "floor", ir::kFloatTypes), ZeroGradient);
  return def;
}

}  // namespace webnnm::ops
