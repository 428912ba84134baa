// gather: picks whole slices of the input along `axis` at `indices`.
// Operands: input (any type), indices (int32, uint32, int64; values in
// [-N, N) for N the size of `axis`; out-of-range values are clamped as the
// WebNN vectors expect). Option: axis (default 0; the model language
// defaults to the first feature dimension).
// Result: input[:axis] + indices.shape + input[axis+1:], the input's type.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status GatherGradient(GradientBuilder& g) {
  // dx = onehot(indices)^T dy along the axis: [N, n] x [P, n, Q] -> [P, N, Q].
  if (!g.wants(0)) return absl::OkStatus();
  const std::vector<int64_t> shape = g.shape(g.x(0));
  int rank = static_cast<int>(shape.size());
  int axis = static_cast<int>(g.attrs().GetInt("axis", 0));
  if (axis < 0) axis += rank;
  ASSIGN_OR_RETURN(ValueId onehot,
                   OneHot(g, g.x(1), shape[axis], g.type(g.x(0)).dtype));
  int64_t n = g.shape(onehot)[0];
  int64_t before = 1, after = 1;
  for (int i = 0; i < axis; ++i) before *= shape[i];
  for (int i = axis + 1; i < rank; ++i) after *= shape[i];
  ASSIGN_OR_RETURN(ValueId dy3, g.Reshape(g.dy(), {before, n, after}));
  ASSIGN_OR_RETURN(ValueId selectT, g.TransposeLast2(onehot));
  ASSIGN_OR_RETURN(ValueId dx3, g.Matmul(selectT, dy3));
  return g.Set(0, g.Reshape(dx3, shape));
}

absl::StatusOr<Types> InferGather(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& indices = c.operand(1);
  if (input.rank() == 0) {
    return OperandError(0, "gather needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", 0, input.rank());
  if (!axis.ok()) return axis.status();
  TensorType out;
  out.dtype = input.dtype;
  bool names = input.has_names();
  for (int i = 0; i < *axis; ++i) {
    out.shape.push_back(input.shape[i]);
    if (names) out.names.push_back(input.names[i]);
  }
  for (int i = 0; i < indices.rank(); ++i) {
    out.shape.push_back(indices.shape[i]);
    if (names) {
      out.names.push_back(
          indices.has_names()
              ? indices.names[i]
              : (indices.rank() == 1 ? "indices" : StrCat("indices", i)));
    }
  }
  for (int i = *axis + 1; i < input.rank(); ++i) {
    out.shape.push_back(input.shape[i]);
    if (names) out.names.push_back(input.names[i]);
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& GatherOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGather,
      .name = "gather",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"},
                   {.name = "indices",
                    .types = ir::kIndexTypes,
                    .in_type_group = false}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kFirstFeatureAxis}},
      .infer = InferGather,
      .gradient = GatherGradient};
  return def;
}

}  // namespace webnnm::ops
