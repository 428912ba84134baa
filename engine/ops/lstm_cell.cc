// lstmCell: one step of a long short-term memory cell.
// Operands: input ([batch, inputSize]; float32, float16), weight
// ([4 * hiddenSize, inputSize]), recurrentWeight ([4 * hiddenSize,
// hiddenSize]), hiddenState and cellState ([batch, hiddenSize]; zeros when
// the model leaves them out), bias and recurrentBias (optional,
// [4 * hiddenSize]), peepholeWeight (optional, [3 * hiddenSize]).
// Options: hiddenSize (required), layout (iofg | ifgo), activations (three
// of relu, sigmoid, tanh).
// Results: the new hidden state and cell state, [batch, hiddenSize] each.
#include "engine/ops/rnn.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferLstmCell(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 4, false);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "iofg").status();
  if (status.ok()) status = CheckActivations(c, 3);
  if (status.ok()) {
    status = CheckRecurrentOperand(c, 1, {4 * s->hidden, s->input_size});
  }
  if (status.ok()) {
    status = CheckRecurrentOperand(c, 2, {4 * s->hidden, s->hidden});
  }
  for (int slot : {3, 4}) {
    if (status.ok()) {
      status = CheckRecurrentOperand(c, slot, {s->batch, s->hidden});
    }
  }
  for (int slot : {5, 6}) {
    if (status.ok()) status = CheckRecurrentOperand(c, slot, {4 * s->hidden});
  }
  if (status.ok()) status = CheckRecurrentOperand(c, 7, {3 * s->hidden});
  if (!status.ok()) return status;
  TensorType state{c.operand(0).dtype, {s->batch, s->hidden}};
  if (c.operand(0).has_names()) {
    state.names = {c.operand(0).names[0], "hidden"};
  }
  status = CheckResult(c, state);
  if (!status.ok()) return status;
  return Types{state, state};
}

absl::StatusOr<TensorType> SolveLstmCell(const InferContext& c,
                                         const TensorType*, int slot) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 4, false);
  if (!s.ok()) return s.status();
  TensorType p;
  switch (slot) {
    case 1:
      p.shape = {4 * s->hidden, s->input_size};
      break;
    case 2:
      p.shape = {4 * s->hidden, s->hidden};
      break;
    case 3:
    case 4:
      p.shape = {s->batch, s->hidden};
      break;
    case 5:
    case 6:
      p.shape = {4 * s->hidden};
      break;
    case 7:
      p.shape = {3 * s->hidden};
      break;
    default:
      return absl::InvalidArgumentError("lstmCell cannot infer this operand");
  }
  return p;
}

}  // namespace

const ir::OpDef& LstmCellOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kLstmCell,
      .name = "lstmCell",
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
                   {.name = "cellState",
                    .types = ir::kFloatTypes,
                    .zeros_if_absent = true},
                   {.name = "bias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias},
                   {.name = "recurrentBias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias},
                   {.name = "peepholeWeight",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "hiddenSize",
                 .kind = ir::AttrKind::kInt,
                 .required = true},
                {.name = "layout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"iofg", "ifgo"}},
                {.name = "activations",
                 .kind = ir::AttrKind::kEnums,
                 .choices = {"relu", "sigmoid", "tanh"}}},
      .infer = InferLstmCell,
      .solve = SolveLstmCell,
      .language_operands = {1, 2}};
  return def;
}

}  // namespace webnnm::ops
