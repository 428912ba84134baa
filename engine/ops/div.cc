// div: y = a / b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to ones.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status DivGradient(GradientBuilder& g) {
  // y = a / b: da = dy / b, db = -dy y / b.
  if (g.wants(0)) RETURN_IF_ERROR(g.Set(0, g.Div(g.dy(), g.x(1))));
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), g.y()));
    ASSIGN_OR_RETURN(ValueId quotient, g.Div(product, g.x(1)));
    RETURN_IF_ERROR(g.Set(1, g.Neg(quotient)));
  }
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& DivOp() {
  static const ir::OpDef def =
      WithGradient(ArithmeticOp(ir::OpKind::kDiv, "div", ir::ParamRole::kScale),
                   DivGradient);
  return def;
}

}  // namespace webnnm::ops
