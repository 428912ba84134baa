// gelu: y = x * Phi(x), Phi the standard normal CDF, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status GeluGradient(GradientBuilder& g) {
  // d/dx x Phi(x) = Phi(x) + x phi(x), with Phi(x) = (1 + erf(x / sqrt 2)) / 2
  // and phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
  ValueId x = g.x(0);
  ASSIGN_OR_RETURN(ValueId scaled, g.MulScalar(x, 0.7071067811865476));
  ASSIGN_OR_RETURN(ValueId erf, g.Op(OpKind::kErf, {scaled}));
  ASSIGN_OR_RETURN(ValueId one_plus, g.Add(erf, g.ScalarLike(1, erf)));
  ASSIGN_OR_RETURN(ValueId cdf, g.MulScalar(one_plus, 0.5));
  ASSIGN_OR_RETURN(ValueId square, g.Mul(x, x));
  ASSIGN_OR_RETURN(ValueId half_square, g.MulScalar(square, -0.5));
  ASSIGN_OR_RETURN(ValueId e, g.Op(OpKind::kExp, {half_square}));
  ASSIGN_OR_RETURN(ValueId pdf, g.MulScalar(e, 0.3989422804014327));
  ASSIGN_OR_RETURN(ValueId x_pdf, g.Mul(x, pdf));
  return SetScaled(g, g.Add(cdf, x_pdf));
}

}  // namespace

const ir::OpDef& GeluOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kGelu, "gelu", ir::kFloatTypes,
                                ir::WeightInit::kHe),
                   GeluGradient);
  return def;
}

}  // namespace webnnm::ops
