// min: y = min(a, b), element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to zeros.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status MinGradient(GradientBuilder& g) {
  // The larger (smaller) operand takes the gradient; ties share it equally.
  ValueId a = g.x(0), b = g.x(1);
  ASSIGN_OR_RETURN(ValueId half, g.MulScalar(g.dy(), 0.5));
  ASSIGN_OR_RETURN(ValueId tie, g.Op(OpKind::kEqual, {a, b}));
  ASSIGN_OR_RETURN(ValueId shared, g.WhereOrZero(tie, half));
  if (g.wants(0)) {
    ASSIGN_OR_RETURN(ValueId wins, g.Op(OpKind::kLesser, {a, b}));
    RETURN_IF_ERROR(g.Set(0, g.Where(wins, g.dy(), shared)));
  }
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId wins, g.Op(OpKind::kLesser, {b, a}));
    RETURN_IF_ERROR(g.Set(1, g.Where(wins, g.dy(), shared)));
  }
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& MinOp() {
  static const ir::OpDef def = WithGradient(
      ArithmeticOp(ir::OpKind::kMin, "min", ir::ParamRole::kBias), MinGradient);
  return def;
}

}  // namespace webnnm::ops
