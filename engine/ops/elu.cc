// elu: y = x if x >= 0 else alpha * (e^x - 1), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 1.0).
// Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status EluGradient(GradientBuilder& g) {
  // x > 0: 1; else alpha exp(x) = y + alpha.
  double alpha = g.attrs().GetFloat("alpha", 1.0);
  ASSIGN_OR_RETURN(ValueId positive,
                   CompareScalar(g, OpKind::kGreater, g.x(0), 0));
  ASSIGN_OR_RETURN(ValueId shifted, g.Add(g.y(), g.ScalarLike(alpha, g.y())));
  ASSIGN_OR_RETURN(ValueId negative_part, g.Mul(g.dy(), shifted));
  return g.Set(0, g.Where(positive, g.dy(), negative_part));
}

}  // namespace

const ir::OpDef& EluOp() {
  static const ir::OpDef def = WithGradient(
      ActivationOp(ir::OpKind::kElu, "elu", ir::kFloatTypes,
                   ir::WeightInit::kHe,
                   {{.name = "alpha", .kind = ir::AttrKind::kFloat}}),
      EluGradient);
  return def;
}

}  // namespace webnnm::ops
