// slice: the window of `sizes` elements from `starts`, every `strides`-th
// element, along each dimension.
// Operand: input (any type). Options: starts (non-negative), sizes
// (positive), strides (positive, default 1) — one per dimension (the model
// language writes them for the feature dimensions; batch and sequence are
// kept whole). starts[i] + sizes[i] must not exceed the dimension.
// Result: the input's type, shape ceil(sizes[i] / strides[i]).
#include "engine/base/checked_math.h"
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status SliceGradient(GradientBuilder& g) {
  // The gradient goes back to the sliced positions, zeros elsewhere: each
  // strided axis is spread out by interleaving zeros, then everything is
  // padded into place.
  const std::vector<int64_t> shape = g.shape(g.x(0));
  int rank = static_cast<int>(shape.size());
  std::vector<int64_t> starts = g.attrs().GetInts("starts", {});
  std::vector<int64_t> sizes = g.attrs().GetInts("sizes", {});
  std::vector<int64_t> strides =
      g.attrs().GetInts("strides", std::vector<int64_t>(rank, 1));
  if (static_cast<int>(starts.size()) != rank ||
      static_cast<int>(sizes.size()) != rank ||
      static_cast<int>(strides.size()) != rank) {
    return absl::InternalError("slice attributes do not match the rank");
  }
  ValueId grad = g.dy();
  std::vector<int64_t> extent = g.shape(grad);
  for (int axis = 0; axis < rank; ++axis) {
    if (strides[axis] == 1 || extent[axis] <= 1) continue;
    int64_t n = extent[axis];
    // [.., n, ..] -> [.., n, 1, ..] -> pad to [.., n, s, ..] -> [.., n s, ..]
    std::vector<int64_t> split = extent;
    split.insert(split.begin() + axis + 1, 1);
    ASSIGN_OR_RETURN(ValueId r, g.Reshape(grad, split));
    std::vector<int64_t> begin(rank + 1, 0), end(rank + 1, 0);
    end[axis + 1] = strides[axis] - 1;
    ir::Attrs pad;
    pad.Set("beginningPadding", begin);
    pad.Set("endingPadding", end);
    ASSIGN_OR_RETURN(ValueId spread, g.Op(OpKind::kPad, {r}, pad));
    std::vector<int64_t> merged = extent;
    merged[axis] = n * strides[axis];
    ASSIGN_OR_RETURN(ValueId flat, g.Reshape(spread, merged));
    merged[axis] = (n - 1) * strides[axis] + 1;
    ASSIGN_OR_RETURN(grad,
                     g.Slice(flat, std::vector<int64_t>(rank, 0), merged));
    extent = merged;
  }
  std::vector<int64_t> begin(rank), end(rank);
  bool padded = false;
  for (int axis = 0; axis < rank; ++axis) {
    begin[axis] = starts[axis];
    end[axis] = shape[axis] - starts[axis] - extent[axis];
    padded |= begin[axis] != 0 || end[axis] != 0;
  }
  if (!padded) return g.Set(0, grad);
  ir::Attrs pad;
  pad.Set("beginningPadding", begin);
  pad.Set("endingPadding", end);
  return g.Set(0, g.Op(OpKind::kPad, {grad}, pad));
}

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
      .infer = InferSlice,
      .gradient = SliceGradient};
  return def;
}

}  // namespace webnnm::ops
