// softsign: y = x / (1 + |x|), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with Glorot.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SoftsignGradient(GradientBuilder& g) {
  // d/dx x / (1 + |x|) = 1 / (1 + |x|)^2
  ASSIGN_OR_RETURN(ValueId magnitude, g.Op(OpKind::kAbs, {g.x(0)}));
  ASSIGN_OR_RETURN(ValueId denominator,
                   g.Add(magnitude, g.ScalarLike(1, magnitude)));
  ASSIGN_OR_RETURN(ValueId square, g.Mul(denominator, denominator));
  return g.Set(0, g.Div(g.dy(), square));
}

}  // namespace

const ir::OpDef& SoftsignOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kSoftsign, "softsign",
                                ir::kFloatTypes, ir::WeightInit::kGlorot),
                   SoftsignGradient);
  return def;
}

}  // namespace webnnm::ops
