// exp: y = e^x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ExpGradient(GradientBuilder& g) {
  return g.Set(0, g.Mul(g.dy(), g.y()));
}

}  // namespace

const ir::OpDef& ExpOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kExp, "exp", ir::kFloatTypes), ExpGradient);
  return def;
}

}  // namespace webnnm::ops
