// reshape: the same elements in row-major order under `newShape`.
// Operand: input (any type). Option: newShape (required; the element count
// must not change, and the batch and sequence dimensions are kept).
// Result: the input's type with shape newShape.
#include <algorithm>

#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status ReshapeGradient(GradientBuilder& g) {
  return g.Set(0, g.Reshape(g.dy(), g.shape(g.x(0))));
}

absl::StatusOr<Types> InferReshape(const InferContext& c) {
  const TensorType& input = c.operand(0);
  std::vector<int64_t> shape = c.attrs.GetInts("newShape", {});
  for (int64_t d : shape) {
    if (d == 0 || d < ir::kSequenceDim) {
      return AttrError("newShape",
                       StrCat("reshape newShape ", ir::ShapeToString(shape),
                              " has a size that is not positive"));
    }
  }
  for (int64_t symbol : {ir::kBatchDim, ir::kSequenceDim}) {
    if (std::count(shape.begin(), shape.end(), symbol) !=
        std::count(input.shape.begin(), input.shape.end(), symbol)) {
      return AttrError(
          "newShape",
          StrCat("reshape must keep the ", ir::DimToString(symbol),
                 " dimension: input ", ir::ShapeToString(input.shape),
                 ", newShape ", ir::ShapeToString(shape)));
    }
  }
  TensorType out;
  out.dtype = input.dtype;
  out.shape = shape;
  std::optional<int64_t> in_count = input.MinElementCount();
  std::optional<int64_t> out_count = out.MinElementCount();
  if (!out_count) {
    return AttrError("newShape",
                     StrCat("reshape newShape ", ir::ShapeToString(shape),
                            " has too many elements"));
  }
  if (in_count != out_count) {
    return AttrError(
        "newShape",
        StrCat("reshape cannot turn ", ir::ShapeToString(input.shape), " (",
               *in_count, " elements) into ", ir::ShapeToString(shape), " (",
               *out_count, " elements)"));
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& ReshapeOp() {
  static const ir::OpDef def{.kind = ir::OpKind::kReshape,
                             .name = "reshape",
                             .category = ir::OpCategory::kMovement,
                             .operands = {{.name = "input"}},
                             .attrs = {{.name = "newShape",
                                        .kind = ir::AttrKind::kShape,
                                        .required = true}},
                             .infer = InferReshape,
                             .gradient = ReshapeGradient};
  return def;
}

}  // namespace webnnm::ops
