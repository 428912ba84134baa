// neg: y = -x, element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status NegGradient(GradientBuilder& g) { return g.Set(0, g.Neg(g.dy())); }

}  // namespace

const ir::OpDef& NegOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kNeg, "neg", ir::kSignedTypes), NegGradient);
  return def;
}

}  // namespace webnnm::ops
