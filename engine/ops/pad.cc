// pad: grows the input by beginningPadding[i] before and endingPadding[i]
// after its content along each dimension i.
// Operand: input (any type). Options: beginningPadding, endingPadding (one
// non-negative integer per dimension; the model language writes them for the
// feature dimensions only), mode (constant | edge | reflection, default
// constant), value (default 0, for constant mode). Reflection padding must be
// smaller than the dimension it mirrors; edge and reflection need a non-empty
// dimension. The batch and sequence dimensions cannot be padded.
// Result: the input's type, padded shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferPad(const InferContext& c) {
  const TensorType& input = c.operand(0);
  int rank = input.rank();
  absl::StatusOr<std::vector<int64_t>> begin = IntListAttr(
      c, "beginningPadding", std::vector<int64_t>(rank, 0), rank, 0);
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> end =
      IntListAttr(c, "endingPadding", std::vector<int64_t>(rank, 0), rank, 0);
  if (!end.ok()) return end.status();
  absl::StatusOr<std::string> mode = EnumAttr(c, "mode", "constant");
  if (!mode.ok()) return mode.status();
  TensorType out = SameShape(c, 0, input.dtype);
  for (int i = 0; i < rank; ++i) {
    int64_t b = (*begin)[i], e = (*end)[i], d = input.shape[i];
    if (ir::IsSymbolic(d)) {
      if (b != 0 || e != 0) {
        return AttrError(
            b != 0 ? "beginningPadding" : "endingPadding",
            StrCat("pad cannot pad the ", ir::DimToString(d), " dimension"));
      }
      continue;
    }
    if (*mode == "reflection" && (b >= d || e >= d)) {
      return AttrError(
          b >= d ? "beginningPadding" : "endingPadding",
          StrCat("reflection padding of ", std::max(b, e), " along axis ", i,
                 " must be smaller than its size ", d));
    }
    absl::StatusOr<int64_t> grown = CheckedAddDims(d, b, "the padded size");
    if (grown.ok()) grown = CheckedAddDims(*grown, e, "the padded size");
    if (!grown.ok()) return AttrError("endingPadding", grown.status());
    out.shape[i] = *grown;
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& PadOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kPad,
      .name = "pad",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"}},
      .attrs = {{.name = "beginningPadding",
                 .kind = ir::AttrKind::kFeatureInts},
                {.name = "endingPadding", .kind = ir::AttrKind::kFeatureInts},
                {.name = "mode",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"constant", "edge", "reflection"}},
                {.name = "value", .kind = ir::AttrKind::kFloat}},
      .infer = InferPad};
  return def;
}

}  // namespace webnnm::ops
