// concat: joins tensors along `axis`.
// Operands: inputs (one or more, any type, all the same type and rank; every
// dimension but `axis` equal). Option: axis (required; the model language
// defaults to the last dimension). Result: the inputs' type, with the sum of
// their sizes along `axis`.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status ConcatGradient(GradientBuilder& g) {
  // Each input takes its slice of the gradient along the axis.
  const std::vector<int64_t>& shape = g.shape(g.y());
  int axis = static_cast<int>(g.attrs().GetInt("axis", 0));
  if (axis < 0) axis += static_cast<int>(shape.size());
  int64_t offset = 0;
  for (int slot = 0; slot < static_cast<int>(g.node().operands.size());
       ++slot) {
    const std::vector<int64_t>& part = g.shape(g.x(slot));
    if (g.wants(slot)) {
      std::vector<int64_t> starts(shape.size(), 0);
      starts[axis] = offset;
      RETURN_IF_ERROR(g.Set(slot, g.Slice(g.dy(), starts, part)));
    }
    offset += part[axis];
  }
  return absl::OkStatus();
}

absl::StatusOr<Types> InferConcat(const InferContext& c) {
  const TensorType& first = c.operand(0);
  int rank = first.rank();
  if (rank == 0)
    return OperandError(0, "concat needs inputs of rank 1 or more");
  absl::StatusOr<int> axis = AxisAttr(c, "axis", -1, rank);
  if (!axis.ok()) return axis.status();
  TensorType out = first;
  for (size_t i = 1; i < c.operands.size(); ++i) {
    const TensorType& next = c.operand(i);
    if (next.rank() != rank) {
      return OperandError(i,
                          StrCat("concat input ", i, " has rank ", next.rank(),
                                 " but input 0 has rank ", rank));
    }
    for (int d = 0; d < rank; ++d) {
      if (d != *axis && next.shape[d] != first.shape[d]) {
        return OperandError(
            i, StrCat("concat input ", i, " has shape ",
                      ir::ShapeToString(next.shape), " but input 0 has ",
                      ir::ShapeToString(first.shape),
                      "; they may differ only along axis ", *axis));
      }
    }
    if (ir::IsSymbolic(next.shape[*axis]) || ir::IsSymbolic(out.shape[*axis])) {
      return AttrError("axis",
                       "concat cannot join along the batch or "
                       "sequence dimension");
    }
    absl::StatusOr<int64_t> sum = CheckedAddDims(
        out.shape[*axis], next.shape[*axis], "the concatenated size");
    if (!sum.ok()) return sum.status();
    out.shape[*axis] = *sum;
  }
  if (ir::IsSymbolic(out.shape[*axis]) && c.operands.size() > 1) {
    return AttrError("axis",
                     "concat cannot join along the batch or sequence "
                     "dimension");
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& ConcatOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kConcat,
      .name = "concat",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "inputs", .variadic = true}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kLastAxis,
                 .required = true}},
      .infer = InferConcat,
      .gradient = ConcatGradient};
  return def;
}

}  // namespace webnnm::ops
