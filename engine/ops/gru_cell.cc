// gruCell: one step of a gated recurrent unit.
// Operands: input ([batch, inputSize]; float32, float16), weight
// ([3 * hiddenSize, inputSize]), recurrentWeight ([3 * hiddenSize,
// hiddenSize]), hiddenState ([batch, hiddenSize]; zeros when the model
// leaves it out), bias and recurrentBias (optional, [3 * hiddenSize]).
// Options: hiddenSize (required), resetAfter (default true), layout (zrn |
// rzn), activations (two of relu, sigmoid, tanh).
// Result: the new hidden state [batch, hiddenSize].
#include "engine/ops/rnn.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferGruCell(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 3, false);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "zrn").status();
  if (status.ok()) status = CheckActivations(c, 2);
  if (status.ok()) {
    status = CheckRecurrentOperand(c, 1, {3 * s->hidden, s->input_size});
  }
  if (status.ok()) {
    status = CheckRecurrentOperand(c, 2, {3 * s->hidden, s->hidden});
  }
  if (status.ok()) status = CheckRecurrentOperand(c, 3, {s->batch, s->hidden});
  for (int slot : {4, 5}) {
    if (status.ok()) status = CheckRecurrentOperand(c, slot, {3 * s->hidden});
  }
  if (!status.ok()) return status;
  TensorType out{c.operand(0).dtype, {s->batch, s->hidden}};
  if (c.operand(0).has_names()) out.names = {c.operand(0).names[0], "hidden"};
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveGruCell(const InferContext& c,
                                        const TensorType*, int slot) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 3, false);
  if (!s.ok()) return s.status();
  TensorType p;
  switch (slot) {
    case 1:
      p.shape = {3 * s->hidden, s->input_size};
      break;
    case 2:
      p.shape = {3 * s->hidden, s->hidden};
      break;
    case 3:
      p.shape = {s->batch, s->hidden};
      break;
    case 4:
    case 5:
      p.shape = {3 * s->hidden};
      break;
    default:
      return absl::InvalidArgumentError("gruCell cannot infer this operand");
  }
  return p;
}

}  // namespace

const ir::OpDef& GruCellOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGruCell,
      .name = "gruCell",
      .category = ir::OpCategory::kRecurrent,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "weight",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
                   {.name = "recurrentWeight",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
                   {.name = "hiddenState",
                    .types = ir::kFloatTypes,
                    .zeros_if_absent = true},
                   {.name = "bias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias},
                   {.name = "recurrentBias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "hiddenSize",
                 .kind = ir::AttrKind::kInt,
                 .required = true},
                {.name = "resetAfter", .kind = ir::AttrKind::kBool},
                {.name = "layout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"zrn", "rzn"}},
                {.name = "activations",
                 .kind = ir::AttrKind::kEnums,
                 .choices = {"relu", "sigmoid", "tanh"}}},
      .infer = InferGruCell,
      .solve = SolveGruCell,
      .language_operands = {1, 2}};
  return def;
}

}  // namespace webnnm::ops
