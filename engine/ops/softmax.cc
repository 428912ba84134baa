// softmax: y_i = e^(x_i) / sum_j e^(x_j) along `axis`.
// Operand: input (float32, float16). Option: axis (default: the last
// dimension). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SoftmaxGradient(GradientBuilder& g) {
  // dx = y (dy - sum_axis(dy y))
  int rank = g.type(g.x(0)).rank();
  int axis = static_cast<int>(g.attrs().GetInt("axis", rank - 1));
  if (axis < 0) axis += rank;
  ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), g.y()));
  ASSIGN_OR_RETURN(ValueId sum, g.ReduceSum(product, {axis}, true));
  ASSIGN_OR_RETURN(ValueId centered, g.Sub(g.dy(), sum));
  return g.Set(0, g.Mul(g.y(), centered));
}

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
  static const ir::OpDef def = WithGradient(
      [] {
        ir::OpDef d = ActivationOp(
            ir::OpKind::kSoftmax, "softmax", ir::kFloatTypes,
            ir::WeightInit::kGlorot,
            {{.name = "axis",
              .kind = ir::AttrKind::kAxis,
              .language_default = ir::LanguageDefault::kLastAxis}});
        d.infer = InferSoftmax;
        return d;
      }(),
      SoftmaxGradient);
  return def;
}

}  // namespace webnnm::ops
