// add: y = a + b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status AddGradient(GradientBuilder& g) {
  RETURN_IF_ERROR(g.Set(0, g.dy()));
  return g.Set(1, g.dy());
}

}  // namespace

const ir::OpDef& AddOp() {
  static const ir::OpDef def = WithGradient(
      ArithmeticOp(ir::OpKind::kAdd, "add", ir::ParamRole::kBias), AddGradient);
  return def;
}

}  // namespace webnnm::ops
