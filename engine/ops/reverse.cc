// reverse: reverses the order of elements along `axes`.
// Operand: input (any type). Option: axes (default: every axis; the model
// language defaults to every feature axis). Result: the input's type and
// shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ReverseGradient(GradientBuilder& g) {
  return g.Set(0, g.Op(OpKind::kReverse, {g.dy()}, g.attrs()));
}

absl::StatusOr<Types> InferReverse(const InferContext& c) {
  int rank = c.operand(0).rank();
  std::vector<int64_t> all(rank);
  for (int i = 0; i < rank; ++i) all[i] = i;
  absl::StatusOr<std::vector<int>> axes = AxesAttr(c, "axes", all, rank);
  if (!axes.ok()) return axes.status();
  return InferSameAsInput(c);
}

}  // namespace

const ir::OpDef& ReverseOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kReverse,
      .name = "reverse",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"}},
      .attrs = {{.name = "axes",
                 .kind = ir::AttrKind::kAxes,
                 .language_default = ir::LanguageDefault::kAllFeatureAxes}},
      .infer = InferReverse,
      .shape_preserving = true,
      .gradient = ReverseGradient};
  return def;
}

}  // namespace webnnm::ops
