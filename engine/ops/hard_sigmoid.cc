// hardSigmoid: y = max(0, min(1, alpha * x + beta)), element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 0.2), beta (default 0.5).
// Weights before it are initialised with Glorot.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status HardSigmoidGradient(GradientBuilder& g) {
  // y = clamp(alpha x + beta, 0, 1): alpha where 0 < alpha x + beta < 1.
  double alpha = g.attrs().GetFloat("alpha", 0.2);
  double beta = g.attrs().GetFloat("beta", 0.5);
  ASSIGN_OR_RETURN(ValueId scaled, g.MulScalar(g.x(0), alpha));
  ASSIGN_OR_RETURN(ValueId t, g.Add(scaled, g.ScalarLike(beta, scaled)));
  ASSIGN_OR_RETURN(ValueId above, CompareScalar(g, OpKind::kGreater, t, 0));
  ASSIGN_OR_RETURN(ValueId below, CompareScalar(g, OpKind::kLesser, t, 1));
  ASSIGN_OR_RETURN(ValueId inside, g.Op(OpKind::kLogicalAnd, {above, below}));
  ASSIGN_OR_RETURN(ValueId slope, g.MulScalar(g.dy(), alpha));
  return g.Set(0, g.WhereOrZero(inside, slope));
}

}  // namespace

const ir::OpDef& HardSigmoidOp() {
  static const ir::OpDef def = WithGradient(
      ActivationOp(ir::OpKind::kHardSigmoid, "hardSigmoid", ir::kFloatTypes,
                   ir::WeightInit::kGlorot,
                   {{.name = "alpha", .kind = ir::AttrKind::kFloat},
                    {.name = "beta", .kind = ir::AttrKind::kFloat}}),
      HardSigmoidGradient);
  return def;
}

}  // namespace webnnm::ops
