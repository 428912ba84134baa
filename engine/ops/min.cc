// min: y = min(a, b), element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status MinGradient(GradientBuilder& g) {
  return ExtremeBinaryGradient(g, OpKind::kLesser);
}

}  // namespace

const ir::OpDef& MinOp() {
  static const ir::OpDef def = WithGradient(
      ArithmeticOp(ir::OpKind::kMin, "min", ir::ParamRole::kBias), MinGradient);
  return def;
}

}  // namespace webnnm::ops
