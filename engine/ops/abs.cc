// abs: y = |x|, element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status AbsGradient(GradientBuilder& g) {
  return SetScaled(g, g.Op(OpKind::kSign, {g.x(0)}));
}

}  // namespace

const ir::OpDef& AbsOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kAbs, "abs", ir::kSignedTypes), AbsGradient);
  return def;
}

}  // namespace webnnm::ops
