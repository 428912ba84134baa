// expand: broadcasts the input to `newShape` (unidirectionally: each input
// dimension equals the new one or is 1).
// Operand: input (any type). Option: newShape (required). Result: the
// input's type with shape newShape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status ExpandGradient(GradientBuilder& g) {
  // Set() sums over the expanded dimensions.
  return g.Set(0, g.dy());
}

absl::StatusOr<Types> InferExpand(const InferContext& c) {
  std::vector<int64_t> shape = c.attrs.GetInts("newShape", {});
  const TensorType& input = c.operand(0);
  absl::Status status = CheckUnidirectional(input, shape, 0, "expand input");
  if (!status.ok()) return AttrError("newShape", status);
  TensorType out;
  out.dtype = input.dtype;
  out.shape = shape;
  if (input.has_names()) {
    // Names of the dimensions the input has; the builder names new ones.
    out.names.assign(shape.size(), "");
    for (int i = 0; i < input.rank(); ++i) {
      out.names[shape.size() - input.rank() + i] = input.names[i];
    }
    for (const std::string& name : out.names) {
      if (name.empty()) {
        out.names.clear();
        break;
      }
    }
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& ExpandOp() {
  static const ir::OpDef def{.kind = ir::OpKind::kExpand,
                             .name = "expand",
                             .category = ir::OpCategory::kMovement,
                             .operands = {{.name = "input"}},
                             .attrs = {{.name = "newShape",
                                        .kind = ir::AttrKind::kShape,
                                        .required = true}},
                             .infer = InferExpand,
                             .gradient = ExpandGradient};
  return def;
}

}  // namespace webnnm::ops
