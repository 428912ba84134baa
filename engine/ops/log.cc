// log: y = ln(x), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status LogGradient(GradientBuilder& g) {
  return g.Set(0, g.Div(g.dy(), g.x(0)));
}

}  // namespace

const ir::OpDef& LogOp() {
  static const ir::OpDef def = WithGradient(
      UnaryOp(ir::OpKind::kLog, "log", ir::kFloatTypes), LogGradient);
  return def;
}

}  // namespace webnnm::ops
