// averagePool2d: y = the mean of each window (padding not counted).
// Operand: input (float32, float16). See pool.h for the options and the
// result.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/pool.h"

namespace webnnm::ops {

namespace {

absl::Status AveragePool2dGradient(GradientBuilder& g) {
  // Average pooling (padding not counted) is separable: y = A_h x A_w^T
  // per plane with A[o, i] = 1 / taps(o) at the window's taps.
  ASSIGN_OR_RETURN(PoolGradientGeometry geometry, ReadPoolGeometry(g));
  ASSIGN_OR_RETURN(ValueId dy, g.Transpose(g.dy(), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId dx, SpreadPooled(g, geometry, dy, /*average=*/true));
  return g.Set(0, g.Transpose(dx, ir::InversePermutation(geometry.to_nchw)));
}

}  // namespace

const ir::OpDef& AveragePool2dOp() {
  static const ir::OpDef def = WithGradient(
      PoolOp(ir::OpKind::kAveragePool2d, "averagePool2d", ir::kFloatTypes),
      AveragePool2dGradient);
  return def;
}

}  // namespace webnnm::ops
