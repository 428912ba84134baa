// cast: converts every element to `type` (round to nearest even for floats,
// saturating or wrapping as WebNN specifies for integers).
// Operand: input (any type). Option: type, a data type (required; the model
// language writes it dataType=). Result: the input's shape in `type`.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status CastGradient(GradientBuilder& g) {
  // Set() casts the gradient back to the input's type.
  return g.Set(0, g.dy());
}

absl::StatusOr<Types> InferCast(const InferContext& c) {
  std::optional<DType> type = ir::ParseDType(c.attrs.GetString("type", ""));
  if (!type) return AttrError("type", "cast needs a target data type");
  return Result(c, SameShape(c, 0, *type));
}

}  // namespace

const ir::OpDef& CastOp() {
  static const ir::OpDef def{.kind = ir::OpKind::kCast,
                             .name = "cast",
                             .category = ir::OpCategory::kCast,
                             .operands = {{.name = "input"}},
                             .attrs = {{.name = "type",
                                        .kind = ir::AttrKind::kDType,
                                        .required = true,
                                        .alias = "dataType"}},
                             .infer = InferCast,
                             .shape_preserving = true,
                             .gradient = CastGradient};
  return def;
}

}  // namespace webnnm::ops
