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
  // [r0 d0, r1 d1, ...] -> [r0, d0, r1, d1, ...], summed over the r axes.
  const std::vector<int64_t> shape = g.shape(g.x(0));
  std::vector<int64_t> reps = g.attrs().GetInts("repetitions", {});
  std::vector<int64_t> split;
  std::vector<int> rep_axes;
  for (size_t i = 0; i < shape.size(); ++i) {
    split.push_back(reps[i]);
    split.push_back(shape[i]);
    if (reps[i] != 1) rep_axes.push_back(static_cast<int>(2 * i));
  }
  ASSIGN_OR_RETURN(ValueId r, g.Reshape(g.dy(), split));
  ASSIGN_OR_RETURN(ValueId summed, g.ReduceSum(r, rep_axes, true));
  return g.Set(0, g.Reshape(summed, shape));
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
