// roundEven: y = x rounded to the nearest integer, halfway cases to even,
// element-wise. Operand: input (float32, float16). Result: the input's type and
// shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& RoundEvenOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kRoundEven, "roundEven", ir::kFloatTypes),
      ZeroGradient);
  return def;
}

}  // namespace webnnm::ops
