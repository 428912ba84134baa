// hardSwish: y = x * max(0, min(6, x + 3)) / 6, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status HardSwishGradient(GradientBuilder& g) {
  // y = x relu6(x + 3) / 6: y' = 0 below -3, (2x + 3) / 6 up to 3, 1 above.
  ValueId x = g.x(0);
  ASSIGN_OR_RETURN(ValueId third, g.MulScalar(x, 1.0 / 3.0));
  ASSIGN_OR_RETURN(ValueId middle, g.Add(third, g.ScalarLike(0.5, x)));
  ASSIGN_OR_RETURN(ValueId above, CompareScalar(g, OpKind::kGreater, x, 3));
  ASSIGN_OR_RETURN(ValueId upper, g.Where(above, g.ScalarLike(1, x), middle));
  ASSIGN_OR_RETURN(ValueId below, CompareScalar(g, OpKind::kLesser, x, -3));
  ASSIGN_OR_RETURN(ValueId slope, g.Where(below, g.ScalarLike(0, x), upper));
  return SetScaled(g, slope);
}

}  // namespace

const ir::OpDef& HardSwishOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kHardSwish, "hardSwish",
                                ir::kFloatTypes, ir::WeightInit::kHe),
                   HardSwishGradient);
  return def;
}

}  // namespace webnnm::ops
