// leakyRelu: y = x if x >= 0 else alpha * x, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 0.01).
// Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status LeakyReluGradient(GradientBuilder& g) {
  double alpha = g.attrs().GetFloat("alpha", 0.01);
  ASSIGN_OR_RETURN(ValueId positive,
                   CompareScalar(g, OpKind::kGreater, g.x(0), 0));
  ASSIGN_OR_RETURN(ValueId negative_part, g.MulScalar(g.dy(), alpha));
  return g.Set(0, g.Where(positive, g.dy(), negative_part));
}

}  // namespace

const ir::OpDef& LeakyReluOp() {
  static const ir::OpDef def = WithGradient(
      ActivationOp(ir::OpKind::kLeakyRelu, "leakyRelu", ir::kFloatTypes,
                   ir::WeightInit::kHe,
                   {{.name = "alpha", .kind = ir::AttrKind::kFloat}}),
      LeakyReluGradient);
  return def;
}

}  // namespace webnnm::ops
