// residual: a skip connection, y = x + to, where `to` names an earlier
// layer or block (resolved in the layer's own block instance first, then
// globally, ERRATA 10d).
// Operands: input, to (the same type and shape). Decomposes into add.
#include "engine/ir/rewriter.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferResidual(const InferContext& c) {
  if (c.operand(0).shape != c.operand(1).shape) {
    return OperandError(
        1, StrCat("residual adds tensors of different shapes: the input is ",
                  ir::ShapeToString(c.operand(0).shape), " but 'to' is ",
                  ir::ShapeToString(c.operand(1).shape)));
  }
  return InferSameAsInput(c);
}

absl::Status DecomposeResidual(ir::GraphRewriter& g, int node) {
  absl::StatusOr<ir::ValueId> sum =
      g.Add(ir::OpKind::kAdd, {g.Operand(node, 0), g.Operand(node, 1)});
  if (!sum.ok()) return sum.status();
  g.Replace(node, {*sum});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& ResidualOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kResidual,
      .name = "residual",
      .category = ir::OpCategory::kHighLevel,
      .operands = {{.name = "input", .types = ir::kNumericTypes},
                   {.name = "to", .types = ir::kNumericTypes}},
      .infer = InferResidual,
      .shape_preserving = true,
      .decompose = DecomposeResidual};
  return def;
}

}  // namespace webnnm::ops
