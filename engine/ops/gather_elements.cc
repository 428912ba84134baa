// gatherElements: y[..., i, ...] = input[..., indices[..., i, ...], ...]
// with the index replacing the coordinate along `axis`.
// Operands: input (any type), indices (int32, uint32, int64; the input's
// rank; along every other axis no larger than the input). Option: axis
// (default 0; the model language defaults to the first feature dimension).
// Result: the indices' shape, the input's type.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status GatherElementsGradient(GradientBuilder& g) {
  // dx[.., i, ..] = sum over j with indices[.., j, ..] = i of dy[.., j, ..]
  if (!g.wants(0)) return absl::OkStatus();
  const std::vector<int64_t> shape = g.shape(g.x(0));
  int rank = static_cast<int>(shape.size());
  int axis = static_cast<int>(g.attrs().GetInt("axis", 0));
  if (axis < 0) axis += rank;
  DType dtype = g.type(g.x(0)).dtype;
  // onehot: indices.shape + [N]; dy as indices.shape + [1].
  ASSIGN_OR_RETURN(ValueId onehot,
                   OneHotKeepShape(g, g.x(1), shape[axis], dtype));
  std::vector<int64_t> dy_shape = g.shape(g.dy());
  dy_shape.push_back(1);
  ASSIGN_OR_RETURN(ValueId dy1, g.Reshape(g.dy(), dy_shape));
  ASSIGN_OR_RETURN(ValueId spread, g.Mul(onehot, dy1));
  ASSIGN_OR_RETURN(ValueId summed, g.ReduceSum(spread, {axis}, false));
  // [.., (axis removed), .., N] -> the input's layout.
  std::vector<int> perm;
  for (int i = 0; i < rank - 1; ++i) {
    if (i == axis) perm.push_back(rank - 1);
    perm.push_back(i);
  }
  if (axis == rank - 1) perm.push_back(rank - 1);
  return g.Set(0, g.Transpose(summed, perm));
}

absl::StatusOr<Types> InferGatherElements(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& indices = c.operand(1);
  if (input.rank() == 0) {
    return OperandError(0, "gatherElements needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", 0, input.rank());
  if (!axis.ok()) return axis.status();
  if (indices.rank() != input.rank()) {
    return OperandError(1, StrCat("gatherElements indices must have the "
                                  "input's rank ",
                                  input.rank(), ", not ", indices.rank()));
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
          StrCat("gatherElements indices shape ",
                 ir::ShapeToString(indices.shape), " exceeds the input shape ",
                 ir::ShapeToString(input.shape), " along axis ", i));
    }
  }
  TensorType out = indices;
  out.dtype = input.dtype;
  if (input.has_names()) out.names = input.names;
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& GatherElementsOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGatherElements,
      .name = "gatherElements",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"},
                   {.name = "indices",
                    .types = ir::kIndexTypes,
                    .in_type_group = false}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kFirstFeatureAxis}},
      .infer = InferGatherElements,
      .gradient = GatherElementsGradient};
  return def;
}

}  // namespace webnnm::ops
