// mul: y = a * b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to ones.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status MulGradient(GradientBuilder& g) {
  if (g.wants(0)) RETURN_IF_ERROR(g.Set(0, g.Mul(g.dy(), g.x(1))));
  if (g.wants(1)) RETURN_IF_ERROR(g.Set(1, g.Mul(g.dy(), g.x(0))));
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& MulOp() {
  static const ir::OpDef def =
      WithGradient(ArithmeticOp(ir::OpKind::kMul, "mul", ir::ParamRole::kScale),
                   MulGradient);
  return def;
}

}  // namespace webnnm::ops
