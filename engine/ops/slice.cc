// slice: the window of `sizes` elements from `starts`, every `strides`-th
// element, along each dimension.
// Operand: input (any type). Options: starts (non-negative), sizes
// (positive), strides (positive, default 1) — one per dimension (the model
// language writes them for the feature dimensions; batch and sequence are
// kept whole). starts[i] + sizes[i] must not exceed the dimension.
// Result: the input's type, shape ceil(sizes[i] / strides[i]).
#include "engine/base/checked_math.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferSlice(const InferContext& c) {
  const TensorType& input = c.operand(0);
  int rank = input.rank();
  absl::StatusOr<std::vector<int64_t>> starts =
      IntListAttr(c, "starts", {}, rank, 0);
  if (!starts.ok()) return starts.status();
  std::vector<int64_t> sizes = c.attrs.GetInts("sizes", {});
  if (static_cast<int>(sizes.size()) != rank) {
    return AttrError("sizes", StrCat("slice sizes must have ", rank,
                                     " values, not ", sizes.size()));
  }
  absl::StatusOr<std::vector<int64_t>> strides =
      IntListAttr(c, "strides", std::vector<int64_t>(rank, 1), rank, 1);
  if (!strides.ok()) return strides.status();
  TensorType out = SameShape(c, 0, input.dtype);
  for (int i = 0; i < rank; ++i) {
    int64_t d = input.shape[i], start = (*starts)[i], size = sizes[i];
    if (ir::IsSymbolic(d) || ir::IsSymbolic(size)) {
      if (size != d || start != 0 || (*strides)[i] != 1) {
        return AttrError("sizes",
                         StrCat("slice must keep the whole ",
                                ir::DimToString(ir::IsSymbolic(d) ? d : size),
                                " dimension"));
      }
      continue;
    }
    if (size <= 0) {
      return AttrError("sizes",
                       StrCat("slice sizes must be positive, not ", size));
    }
    std::optional<int64_t> stop = CheckedAdd(start, size);
    if (!stop || *stop > d) {
      return AttrError(
          "sizes", StrCat("slice of ", size, " elements from ", start,
                          " runs past the end of axis ", i, " (size ", d, ")"));
    }
    out.shape[i] = (size + (*strides)[i] - 1) / (*strides)[i];
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& SliceOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kSlice,
      .name = "slice",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"}},
      .attrs = {{.name = "starts",
                 .kind = ir::AttrKind::kFeatureInts,
                 .required = true},
                {.name = "sizes",
                 .kind = ir::AttrKind::kFeatureInts,
                 .required = true},
                {.name = "strides", .kind = ir::AttrKind::kFeatureInts}},
      .infer = InferSlice};
  return def;
}

}  // namespace webnnm::ops
