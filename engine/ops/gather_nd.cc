// gatherND: picks slices of the input at whole coordinates: the last
// dimension of `indices` (k) holds one coordinate into the first k input
// dimensions.
// Operands: input (any type), indices (int32, uint32, int64; rank >= 1;
// 1 <= k <= the input's rank). Result: indices.shape[:-1] + input.shape[k:],
// the input's type.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status GatherNDGradient(GradientBuilder& g) {
  // Flattens the first k input dimensions and scatters back through a
  // one-hot matrix of the flattened coordinates.
  if (!g.wants(0)) return absl::OkStatus();
  const std::vector<int64_t> shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(FlatIndex flat, FlattenCoordinates(g, g.x(1), shape));
  ASSIGN_OR_RETURN(ValueId onehot,
                   OneHot(g, flat.index, flat.rows, g.type(g.x(0)).dtype));
  int64_t n = g.shape(onehot)[0];
  ASSIGN_OR_RETURN(ValueId dy2, g.Reshape(g.dy(), {n, flat.row_size}));
  ASSIGN_OR_RETURN(ValueId selectT, g.TransposeLast2(onehot));
  ASSIGN_OR_RETURN(ValueId dx2, g.Matmul(selectT, dy2));
  return g.Set(0, g.Reshape(dx2, shape));
}

absl::StatusOr<Types> InferGatherND(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& indices = c.operand(1);
  if (input.rank() == 0) {
    return OperandError(0, "gatherND needs an input of rank 1 or more");
  }
  absl::Status status = CheckRank(c, 1, 1, 1000);
  if (!status.ok()) return status;
  absl::StatusOr<int64_t> k =
      ConcreteDim(c, 1, indices.rank() - 1, "the coordinate length");
  if (!k.ok()) return k.status();
  if (*k < 1 || *k > input.rank()) {
    return OperandError(
        1, StrCat("gatherND coordinates have ", *k,
                  " components but the input has rank ", input.rank()));
  }
  TensorType out;
  out.dtype = input.dtype;
  for (int i = 0; i + 1 < indices.rank(); ++i) {
    out.shape.push_back(indices.shape[i]);
  }
  for (int i = static_cast<int>(*k); i < input.rank(); ++i) {
    out.shape.push_back(input.shape[i]);
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& GatherNDOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGatherND,
      .name = "gatherND",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"},
                   {.name = "indices",
                    .types = ir::kIndexTypes,
                    .in_type_group = false}},
      // The model language's: the first feature the coordinates address
      // (engine/dag/index_adapters.cc); never reaches the op.
      .attrs = {{.name = "axis", .kind = ir::AttrKind::kAxis}},
      .infer = InferGatherND,
      .gradient = GatherNDGradient};
  return def;
}

}  // namespace webnnm::ops
