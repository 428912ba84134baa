// max: y = max(a, b), element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status MaxGradient(GradientBuilder& g) {
  return ExtremeBinaryGradient(g, OpKind::kGreater);
}

}  // namespace

const ir::OpDef& MaxOp() {
  static const ir::OpDef def = WithGradient(
      ArithmeticOp(ir::OpKind::kMax, "max", ir::ParamRole::kBias), MaxGradient);
  return def;
}

}  // namespace webnnm::ops
