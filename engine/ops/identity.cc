// identity: y = x (a copy), element-wise.
// Operand: input (any). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status IdentityGradient(GradientBuilder& g) { return g.Set(0, g.dy()); }

}  // namespace

const ir::OpDef& IdentityOp() {
  static const ir::OpDef def =
      WithGradient(UnaryOp(ir::OpKind::kIdentity, "identity", ir::kAllTypes),
                   IdentityGradient);
  return def;
}

}  // namespace webnnm::ops
