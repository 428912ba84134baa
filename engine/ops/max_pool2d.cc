// maxPool2d: y = the largest element of each window.
// Operand: input (float32, float16, int8, uint8). See pool.h for the options
// and the result.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/pool.h"

namespace webnnm::ops {

namespace {

absl::Status MaxPool2dGradient(GradientBuilder& g) {
  // Each window's gradient goes to its first maximal tap (row-major order,
  // as PyTorch): tap by tap, the input seen through that tap is compared
  // with the result, and the taps not yet taken get dy.
  ASSIGN_OR_RETURN(PoolGradientGeometry geometry, ReadPoolGeometry(g));
  ASSIGN_OR_RETURN(ValueId dy, g.Transpose(g.dy(), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId y, g.Transpose(g.y(), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId x, g.Transpose(g.x(0), geometry.to_nchw));
  ASSIGN_OR_RETURN(ValueId dx, MaxPoolSpread(g, geometry, x, y, dy));
  return g.Set(0, g.Transpose(dx, ir::InversePermutation(geometry.to_nchw)));
}

}  // namespace

const ir::OpDef& MaxPool2dOp() {
  static const ir::OpDef def = WithGradient(
      PoolOp(ir::OpKind::kMaxPool2d, "maxPool2d",
             {DType::kFloat32, DType::kFloat16, DType::kInt8, DType::kUint8}),
      MaxPool2dGradient);
  return def;
}

}  // namespace webnnm::ops
