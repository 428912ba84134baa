// scatterElements: a copy of the input with updates[..., i, ...] written at
// the coordinate whose `axis` component is indices[..., i, ...].
// Operands: input (any type), indices (int32, uint32, int64), updates (the
// input's type; a trainable parameter gets the indices' shape). indices and
// updates have the same shape and the input's rank. Option: axis (default 0;
// the model language defaults to the first feature dimension).
// Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ScatterElementsGradient(GradientBuilder& g) {
  // The written positions take the updates' gradient; the others the
  // input's.
  if (g.wants(0)) {
    DType dtype = g.type(g.x(0)).dtype;
    ASSIGN_OR_RETURN(ValueId zeros, g.Fill(0, g.shape(g.x(0)), dtype));
    ASSIGN_OR_RETURN(ValueId ones, g.Fill(1, g.shape(g.x(2)), dtype));
    ASSIGN_OR_RETURN(ValueId written, g.Op(OpKind::kScatterElements,
                                           {zeros, g.x(1), ones}, g.attrs()));
    ASSIGN_OR_RETURN(ValueId kept, g.Sub(g.ScalarLike(1, written), written));
    RETURN_IF_ERROR(g.Set(0, g.Mul(g.dy(), kept)));
  }
  if (g.wants(2)) {
    RETURN_IF_ERROR(
        g.Set(2, g.Op(OpKind::kGatherElements, {g.dy(), g.x(1)}, g.attrs())));
  }
  return absl::OkStatus();
}

absl::StatusOr<Types> InferScatterElements(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& indices = c.operand(1);
  const TensorType& updates = c.operand(2);
  if (input.rank() == 0) {
    return OperandError(0, "scatterElements needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", 0, input.rank());
  if (!axis.ok()) return axis.status();
  if (indices.rank() != input.rank()) {
    return OperandError(1, StrCat("scatterElements indices must have the "
                                  "input's rank ",
                                  input.rank(), ", not ", indices.rank()));
  }
  if (updates.shape != indices.shape) {
    return OperandError(2, StrCat("scatterElements updates shape ",
                                  ir::ShapeToString(updates.shape),
                                  " differs from the indices shape ",
                                  ir::ShapeToString(indices.shape)));
  }
  for (int i = 0; i < input.rank(); ++i) {
    if (i == *axis) continue;
    bool fits =
        indices.shape[i] == input.shape[i] ||
        (!ir::IsSymbolic(indices.shape[i]) && !ir::IsSymbolic(input.shape[i]) &&
         indices.shape[i] <= input.shape[i]);
    if (!fits) {
      return OperandError(
          1,
          StrCat("scatterElements indices shape ",
                 ir::ShapeToString(indices.shape), " exceeds the input shape ",
                 ir::ShapeToString(input.shape), " along axis ", i));
    }
  }
  return InferSameAsInput(c);
}

absl::StatusOr<TensorType> SolveUpdates(const InferContext& c,
                                        const TensorType*, int slot) {
  if (slot != 2 || !c.has(1)) {
    return absl::InvalidArgumentError("cannot infer this parameter's shape");
  }
  TensorType updates = c.operand(1);
  for (int64_t d : updates.shape) {
    if (ir::IsSymbolic(d)) {
      return absl::InvalidArgumentError(
          "scatterElements updates would need the batch dimension; pass a "
          "layer's output instead of a parameter");
    }
  }
  return updates;
}

}  // namespace

const ir::OpDef& ScatterElementsOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kScatterElements,
      .name = "scatterElements",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"},
                   {.name = "indices",
                    .types = ir::kIndexTypes,
                    .in_type_group = false},
                   {.name = "updates", .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kFirstFeatureAxis}},
      .infer = InferScatterElements,
      .solve = SolveUpdates,
      .shape_preserving = true,
      .language_operands = {2, 1},
      .gradient = ScatterElementsGradient};
  return def;
}

}  // namespace webnnm::ops
