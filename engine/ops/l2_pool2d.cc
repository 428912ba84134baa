// l2Pool2d: y = the square root of the sum of squares of each window.
// Operand: input (float32, float16). See pool.h for the options and the
// result.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/pool.h"

namespace webnnm::ops {

namespace {

absl::Status L2Pool2dGradient(GradientBuilder& g) {
  // y = sqrt(sum of x^2 over the window): dx = x * spread(dy / y), with
  // zero where y = 0.
  ASSIGN_OR_RETURN(PoolGradientGeometry geometry, ReadPoolGeometry(g));
  ASSIGN_OR_RETURN(ValueId dy, g.Transpose(g.dy(), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId y, g.Transpose(g.y(), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId x, g.Transpose(g.x(0), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId nonzero, CompareScalar(g, OpKind::kGreater, y, 0));
  ASSIGN_OR_RETURN(ValueId safe, g.Where(nonzero, y, g.ScalarLike(1, y)));
  ASSIGN_OR_RETURN(ValueId ratio, g.Div(dy, safe));
  ASSIGN_OR_RETURN(ValueId masked, g.WhereOrZero(nonzero, ratio));
  ASSIGN_OR_RETURN(ValueId spread,
                   SpreadPooled(g, geometry, masked, /*average=*/false));
  ASSIGN_OR_RETURN(ValueId dx, g.Mul(x, spread));
  return g.Set(0, g.Transpose(dx, ir::InversePermutation(geometry.to_nchw)));
}

}  // namespace

const ir::OpDef& L2Pool2dOp() {
  static const ir::OpDef def =
      WithGradient(PoolOp(ir::OpKind::kL2Pool2d, "l2Pool2d", ir::kFloatTypes),
                   L2Pool2dGradient);
  return def;
}

}  // namespace webnnm::ops
