// linear: y = alpha * x + beta, element-wise.
// Operand: input (float32, float16). Result: the input's type and shape.
// Options: alpha (default 1.0), beta (default 0.0).
// Weights before it are initialised with Glorot.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status LinearGradient(GradientBuilder& g) {
  return g.Set(0, g.MulScalar(g.dy(), g.attrs().GetFloat("alpha", 1.0)));
}

}  // namespace

const ir::OpDef& LinearOp() {
  static const ir::OpDef def = WithGradient(
      ActivationOp(ir::OpKind::kLinear, "linear", ir::kFloatTypes,
                   ir::WeightInit::kGlorot,
                   {{.name = "alpha", .kind = ir::AttrKind::kFloat},
                    {.name = "beta", .kind = ir::AttrKind::kFloat}}),
      LinearGradient);
  return def;
}

}  // namespace webnnm::ops
