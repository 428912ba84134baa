// tile: repeats the input repetitions[i] times along each dimension i.
// Operand: input (any type). Option: repetitions (required; one positive
// integer per dimension; the model language writes them for the feature
// dimensions or as {name: count}). The batch and sequence dimensions are
// never repeated. Result: the input's type, shape input[i] * repetitions[i].
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status TileGradient(GradientBuilder& g) {
  // One repeated axis at a time, so that no intermediate exceeds rank 4
  // whatever the input's rank: [before, r d, after] -> [before, r, d,
  // after], summed over r -> [before, d, after].
  const std::vector<int64_t> shape = g.shape(g.x(0));
  std::vector<int64_t> reps = g.attrs().GetInts("repetitions", {});
  std::vector<int64_t> current = g.shape(g.dy());
  ValueId grad = g.dy();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (reps[i] == 1) continue;
    int64_t before = 1, after = 1;
    for (size_t k = 0; k < i; ++k) before *= current[k];
    for (size_t k = i + 1; k < current.size(); ++k) after *= current[k];
    ASSIGN_OR_RETURN(ValueId split,
                     g.Reshape(grad, {before, reps[i], shape[i], after}));
    ASSIGN_OR_RETURN(grad, g.ReduceSum(split, {1}, false));
    current[i] = shape[i];
    ASSIGN_OR_RETURN(grad, g.Reshape(grad, current));
  }
  return g.Set(0, grad);
}

absl::StatusOr<Types> InferTile(const InferContext& c) {
  const TensorType& input = c.operand(0);
  int rank = input.rank();
  absl::StatusOr<std::vector<int64_t>> reps =
      IntListAttr(c, "repetitions", {}, rank, 1);
  if (!reps.ok()) return reps.status();
  TensorType out = SameShape(c, 0, input.dtype);
  for (int i = 0; i < rank; ++i) {
    if (ir::IsSymbolic(input.shape[i])) {
      if ((*reps)[i] != 1) {
        return AttrError("repetitions",
                         StrCat("tile cannot repeat the ",
                                ir::DimToString(input.shape[i]), " dimension"));
      }
      continue;
    }
    absl::StatusOr<int64_t> size =
        CheckedMulDims(input.shape[i], (*reps)[i], "the tiled size");
    if (!size.ok()) return AttrError("repetitions", size.status());
    out.shape[i] = *size;
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& TileOp() {
  static const ir::OpDef def{.kind = ir::OpKind::kTile,
                             .name = "tile",
                             .category = ir::OpCategory::kMovement,
                             .operands = {{.name = "input"}},
                             .attrs = {{.name = "repetitions",
                                        .kind = ir::AttrKind::kFeatureInts,
                                        .required = true}},
                             .infer = InferTile,
                             .gradient = TileGradient};
  return def;
}

}  // namespace webnnm::ops
