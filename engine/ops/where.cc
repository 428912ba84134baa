// where: y = trueValue where condition is non-zero, else falseValue, with
// all three broadcast together.
// Operands: condition (uint8), trueValue, falseValue (any type, the same).
// Trainable values get one value per channel, initialised to zeros.
// Result: the values' type, the broadcast shape.
//
// In the model language the layer's input is the condition when both values
// are given (`greater(0), where(a, b)`); with `condition=c` the layer's
// input is trueValue and one operand, falseValue, follows.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status WhereGradient(GradientBuilder& g) {
  // The condition selects which value each gradient element goes to.
  ValueId condition = g.x(0);
  if (g.wants(1)) RETURN_IF_ERROR(g.Set(1, g.WhereOrZero(condition, g.dy())));
  if (g.wants(2)) {
    RETURN_IF_ERROR(
        g.Set(2, g.Where(condition, g.ScalarLike(0, g.dy()), g.dy())));
  }
  return absl::OkStatus();
}

absl::StatusOr<Types> InferWhere(const InferContext& c) {
  absl::StatusOr<TensorType> values = Broadcast(c, 1, 2, c.operand(1).dtype);
  if (!values.ok()) return values.status();
  absl::StatusOr<TensorType> out =
      BroadcastTypes(*values, c.operand(0), c.operand(1).dtype, 0);
  if (!out.ok()) return out.status();
  return Result(c, *std::move(out));
}

absl::StatusOr<TensorType> SolveValue(const InferContext& c,
                                      const TensorType* expected, int slot) {
  // One value per channel of whichever operand is known.
  for (int known : {0, 1, 2}) {
    if (known != slot && c.has(known) && c.operand(known).rank() > 0) {
      return PerChannelShape(c.operand(known));
    }
  }
  if (expected != nullptr) return PerChannelShape(*expected);
  return absl::InvalidArgumentError(
      StrCat("cannot infer the shape of where's ", c.op.operands[slot].name));
}

}  // namespace

const ir::OpDef& WhereOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kWhere,
      .name = "where",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "condition",
                    .types = {DType::kUint8},
                    .in_type_group = false},
                   {.name = "trueValue", .param = ir::ParamRole::kBias},
                   {.name = "falseValue", .param = ir::ParamRole::kBias}},
      .infer = InferWhere,
      .solve = SolveValue,
      .gradient = WhereGradient};
  return def;
}

}  // namespace webnnm::ops
