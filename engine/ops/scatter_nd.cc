// scatterND: a copy of the input with slices of `updates` written at whole
// coordinates given by `indices` (last dimension k: a coordinate into the
// first k input dimensions).
// Operands: input (any type), indices (int32, uint32, int64), updates (the
// input's type, shape indices.shape[:-1] + input.shape[k:]; a trainable
// parameter gets that shape). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ScatterNDGradient(GradientBuilder& g) {
  // The written slices take the updates' gradient; the rest the input's.
  if (g.wants(0)) {
    ASSIGN_OR_RETURN(ValueId zeros,
                     g.Fill(0, g.shape(g.x(2)), g.type(g.x(2)).dtype));
    RETURN_IF_ERROR(
        g.Set(0, g.Op(OpKind::kScatterND, {g.dy(), g.x(1), zeros})));
  }
  if (g.wants(2)) {
    RETURN_IF_ERROR(g.Set(2, g.Op(OpKind::kGatherND, {g.dy(), g.x(1)})));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> UpdatesShape(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& indices = c.operand(1);
  if (input.rank() == 0) {
    return OperandError(0, "scatterND needs an input of rank 1 or more");
  }
  absl::Status status = CheckRank(c, 1, 1, 1000);
  if (!status.ok()) return status;
  absl::StatusOr<int64_t> k =
      ConcreteDim(c, 1, indices.rank() - 1, "the coordinate length");
  if (!k.ok()) return k.status();
  if (*k < 1 || *k > input.rank()) {
    return OperandError(
        1, StrCat("scatterND coordinates have ", *k,
                  " components but the input has rank ", input.rank()));
  }
  std::vector<int64_t> shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), input.shape.begin() + *k, input.shape.end());
  return shape;
}

absl::StatusOr<Types> InferScatterND(const InferContext& c) {
  absl::StatusOr<std::vector<int64_t>> expected = UpdatesShape(c);
  if (!expected.ok()) return expected.status();
  if (c.operand(2).shape != *expected) {
    return OperandError(2, StrCat("scatterND updates must have shape ",
                                  ir::ShapeToString(*expected), ", not ",
                                  ir::ShapeToString(c.operand(2).shape)));
  }
  return InferSameAsInput(c);
}

absl::StatusOr<TensorType> SolveUpdates(const InferContext& c,
                                        const TensorType*, int slot) {
  if (slot != 2 || !c.has(1)) {
    return absl::InvalidArgumentError("cannot infer this parameter's shape");
  }
  absl::StatusOr<std::vector<int64_t>> shape = UpdatesShape(c);
  if (!shape.ok()) return shape.status();
  TensorType updates;
  updates.shape = *std::move(shape);
  for (int64_t d : updates.shape) {
    if (ir::IsSymbolic(d)) {
      return absl::InvalidArgumentError(
          "scatterND updates would need the batch dimension; pass a layer's "
          "output instead of a parameter");
    }
  }
  return updates;
}

}  // namespace

const ir::OpDef& ScatterNDOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kScatterND,
      .name = "scatterND",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"},
                   {.name = "indices",
                    .types = ir::kIndexTypes,
                    .in_type_group = false},
                   {.name = "updates", .param = ir::ParamRole::kBias}},
      // The model language's (the specification's scatterND(axis=)): the
      // first feature the coordinates address (engine/dag/
      // index_adapters.cc); never reaches the op.
      .attrs = {{.name = "axis", .kind = ir::AttrKind::kAxis}},
      .infer = InferScatterND,
      .solve = SolveUpdates,
      .shape_preserving = true,
      .language_operands = {2, 1},
      .gradient = ScatterNDGradient};
  return def;
}

}  // namespace webnnm::ops
