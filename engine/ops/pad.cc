// pad: grows the input by beginningPadding[i] before and endingPadding[i]
// after its content along each dimension i.
// Operand: input (any type). Options: beginningPadding, endingPadding (one
// non-negative integer per dimension; the model language writes them for the
// feature dimensions only), mode (constant | edge | reflection, default
// constant), value (default 0, for constant mode). Reflection padding must be
// smaller than the dimension it mirrors; edge and reflection need a non-empty
// dimension. The batch and sequence dimensions cannot be padded. The model
// language also takes the specification's spelling endPadding.
// Result: the input's type, padded shape.
#include <algorithm>

#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status PadGradient(GradientBuilder& g) {
  const std::vector<int64_t> shape = g.shape(g.x(0));
  int rank = static_cast<int>(shape.size());
  std::vector<int64_t> begin = g.attrs().GetInts("beginningPadding", {});
  std::vector<int64_t> end = g.attrs().GetInts("endingPadding", {});
  std::string mode = g.attrs().GetString("mode", "constant");
  if (mode == "constant") {
    return g.Set(0, g.Slice(g.dy(), begin, shape));
  }
  // edge / reflection: each output position reads one input position along
  // each axis; the gradient sums back through the transposed selection
  // matrix of every padded axis.
  ValueId grad = g.dy();
  DType dtype = g.type(grad).dtype;
  for (int axis = 0; axis < rank; ++axis) {
    if (begin[axis] == 0 && end[axis] == 0) continue;
    int64_t n = shape[axis];
    int64_t out = n + begin[axis] + end[axis];
    std::vector<double> select(out * n, 0.0);
    for (int64_t j = 0; j < out; ++j) {
      int64_t i = j - begin[axis];
      if (mode == "edge") {
        i = std::clamp<int64_t>(i, 0, n - 1);
      } else {  // reflection
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
      }
      select[j * n + i] = 1.0;
    }
    ASSIGN_OR_RETURN(ValueId matrix, g.ConstantTensor({out, n}, dtype, select));
    ASSIGN_OR_RETURN(grad, ApplyTransposedAlongAxis(g, grad, axis, matrix));
  }
  return g.Set(0, grad);
}

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
                {.name = "endingPadding",
                 .kind = ir::AttrKind::kFeatureInts,
                 .alias = "endPadding"},  // the specification's spelling
                {.name = "mode",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"constant", "edge", "reflection"}},
                {.name = "value", .kind = ir::AttrKind::kFloat}},
      .infer = InferPad,
      .gradient = PadGradient};
  return def;
}

}  // namespace webnnm::ops
