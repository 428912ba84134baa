// softmax: y_i = e^(x_i) / sum_j e^(x_j) along `axis`.
// Operand: input (float32, float16). Option: axis (default: the last
// dimension). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferSoftmax(const InferContext& c) {
  int rank = c.operand(0).rank();
  if (rank == 0) {
    return OperandError(0, "softmax needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", rank - 1, rank);
  if (!axis.ok()) return axis.status();
  return InferSameAsInput(c);
}

}  // namespace

const ir::OpDef& SoftmaxOp() {
  static const ir::OpDef def = [] {
    ir::OpDef d =
        ActivationOp(ir::OpKind::kSoftmax, "softmax", ir::kFloatTypes,
                     ir::WeightInit::kGlorot,
                     {{.name = "axis",
                       .kind = ir::AttrKind::kAxis,
                       .language_default = ir::LanguageDefault::kLastAxis}});
    d.infer = InferSoftmax;
    return d;
  }();
  return def;
}

}  // namespace webnnm::ops
