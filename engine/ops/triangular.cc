// triangular: keeps the upper (or lower) triangle of the matrices in the
// last two dimensions and zeroes the rest; `diagonal` shifts the boundary
// (positive: up and right).
// Operand: input (any type; rank >= 2). Options: upper (default true),
// diagonal (default 0). Result: the input's type and shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status TriangularGradient(GradientBuilder& g) {
  return g.Set(0, g.Op(OpKind::kTriangular, {g.dy()}, g.attrs()));
}

absl::StatusOr<Types> InferTriangular(const InferContext& c) {
  absl::Status status = CheckRank(c, 0, 2, 1000);
  if (!status.ok()) return status;
  return InferSameAsInput(c);
}

}  // namespace

const ir::OpDef& TriangularOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kTriangular,
      .name = "triangular",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"}},
      .attrs = {{.name = "upper", .kind = ir::AttrKind::kBool},
                {.name = "diagonal", .kind = ir::AttrKind::kInt}},
      .infer = InferTriangular,
      .shape_preserving = true,
      .gradient = TriangularGradient};
  return def;
}

}  // namespace webnnm::ops
