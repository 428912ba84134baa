// tile: repeats the input repetitions[i] times along each dimension i.
// Operand: input (any type). Option: repetitions (required; one positive
// integer per dimension; the model language writes them for the feature
// dimensions or as {name: count}). The batch and sequence dimensions are
// never repeated. Result: the input's type, shape input[i] * repetitions[i].
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

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
                             .infer = InferTile};
  return def;
}

}  // namespace webnnm::ops
