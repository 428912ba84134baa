// pow: y = a ^ b, element-wise with broadcasting.
// Operands: a, b (same numeric type). Result: the broadcast shape.
// A trainable b gets one value per channel of a, initialised to ones.
#include "engine/ops/binary.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

absl::Status PowGradient(GradientBuilder& g) {
  // y = a^b: da = dy b a^(b - 1); db = dy y log(a) where a > 0, else 0
  // (the real power has no derivative in b at a <= 0; zero keeps training
  // free of NaN where PyTorch gives NaN).
  ValueId a = g.x(0), b = g.x(1);
  if (g.wants(0)) {
    ASSIGN_OR_RETURN(ValueId b_minus_1, g.Sub(b, g.ScalarLike(1, b)));
    ASSIGN_OR_RETURN(ValueId power, g.Op(OpKind::kPow, {a, b_minus_1}));
    ASSIGN_OR_RETURN(ValueId slope, g.Mul(b, power));
    RETURN_IF_ERROR(g.Set(0, g.Mul(g.dy(), slope)));
  }
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId positive,
                     CompareScalar(g, OpKind::kGreater, a, 0));
    ASSIGN_OR_RETURN(ValueId one, g.Where(positive, a, g.ScalarLike(1, a)));
    ASSIGN_OR_RETURN(ValueId log, g.Op(OpKind::kLog, {one}));
    ASSIGN_OR_RETURN(ValueId product, g.Mul(g.y(), log));
    ASSIGN_OR_RETURN(ValueId scaled, g.Mul(g.dy(), product));
    RETURN_IF_ERROR(g.Set(1, g.WhereOrZero(positive, scaled)));
  }
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& PowOp() {
  static const ir::OpDef def =
      WithGradient(ArithmeticOp(ir::OpKind::kPow, "pow", ir::ParamRole::kScale),
                   PowGradient);
  return def;
}

}  // namespace webnnm::ops
