// ceil: y = the smallest integer >= x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& CeilOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kCeil, "ceil", ir::kFloatTypes), ZeroGradient);
  return def;
}

}  // namespace webnnm::ops
