// sub: y = a - b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status SubGradient(GradientBuilder& g) {
  RETURN_IF_ERROR(g.Set(0, g.dy()));
  if (!g.wants(1)) return absl::OkStatus();
  return g.Set(1, g.Neg(g.dy()));
}

}  // namespace

const ir::OpDef& SubOp() {
  static const ir::OpDef def = WithGradient(
      ArithmeticOp(ir::OpKind::kSub, "sub", ir::ParamRole::kBias), SubGradient);
  return def;
}

}  // namespace webnnm::ops
