// maxPool2dGradient (internal): the gradient of max pooling over windows
// that tile the input (strides equal to the window, no padding or
// dilation), which is how convolutional networks pool: each window's
// gradient goes to its first maximal tap in row-major order (a NaN counts
// as the maximum, the first NaN first — argMax's rule), every other
// element gets 0, and so do the rows and columns no window reaches. One
// pass over the input where the same rule written with WebNN operations
// (taps regrouped first, argMax, an equality, a where and the way back)
// makes seven; the results are the same bit for bit (pool.cc).
// Operands: input x (float32, [N, C, H, W]) and gradient dy (float32,
// [N, C, OH, OW], OH * kh <= H, OW * kw <= W). Option: windowDimensions
// [kh, kw]. Result: x's type. Not differentiable.
#include "engine/base/status_macros.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

constexpr int kX = 0, kDy = 1;

absl::StatusOr<Types> InferMaxPool2dGradient(const InferContext& c) {
  absl::Status status = CheckRankIs(c, kX, 4);
  if (status.ok()) status = CheckRankIs(c, kDy, 4);
  if (status.ok()) status = CheckDType(c, kX, DTypeSet{DType::kFloat32});
  if (status.ok()) status = CheckSameDType(c, kDy, kX);
  if (!status.ok()) return status;
  ASSIGN_OR_RETURN(std::vector<int64_t> window,
                   IntListAttr(c, "windowDimensions", {}, 2, 1));
  const std::vector<int64_t>& x = c.operand(kX).shape;
  const std::vector<int64_t>& dy = c.operand(kDy).shape;
  for (int d = 0; d < 4; ++d) {
    if (ir::IsSymbolic(x[d]) || ir::IsSymbolic(dy[d])) {
      return OperandError(kX, "maxPool2dGradient needs fixed shapes");
    }
  }
  if (dy[0] != x[0] || dy[1] != x[1] || dy[2] * window[0] > x[2] ||
      dy[3] * window[1] > x[3]) {
    return OperandError(
        kDy, StrCat("maxPool2dGradient: a gradient of ", ir::ShapeToString(dy),
                    " does not tile an input of ", ir::ShapeToString(x),
                    " with windows of ", window[0], "x", window[1]));
  }
  return Result(c, c.operand(kX));
}

}  // namespace

const ir::OpDef& MaxPool2dGradientOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kMaxPool2dGradient,
      .name = "maxPool2dGradient",
      .category = ir::OpCategory::kInternal,
      .operands = {{.name = "input", .types = {DType::kFloat32}},
                   {.name = "gradient", .types = {DType::kFloat32}}},
      .attrs = {{.name = "windowDimensions", .kind = ir::AttrKind::kSpatial}},
      .infer = InferMaxPool2dGradient};
  return def;
}

}  // namespace webnnm::ops
