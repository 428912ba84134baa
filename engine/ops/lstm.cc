// lstm: a long short-term memory layer run over a whole sequence.
// Operands: input ([steps, batch, inputSize]; float32, float16), weight
// ([directions, 4 * hiddenSize, inputSize]), recurrentWeight ([directions,
// 4 * hiddenSize, hiddenSize]), bias and recurrentBias (optional,
// [directions, 4 * hiddenSize]), peepholeWeight (optional, [directions,
// 3 * hiddenSize]), initialHiddenState and initialCellState (optional,
// [directions, batch, hiddenSize]).
// Options: steps, hiddenSize (required), returnSequence (default false),
// direction (forward | backward | both), layout (iofg | ifgo, default
// iofg), activations (three of relu, sigmoid, tanh; default [sigmoid, tanh,
// tanh]).
// Results: the last hidden state and cell state [directions, batch,
// hiddenSize] and, with returnSequence, every step's hidden state [steps,
// directions, batch, hiddenSize].
#include "engine/ops/rnn.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferLstm(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 4, true);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "iofg").status();
  if (status.ok()) status = CheckActivations(c, 3);
  if (status.ok()) {
    status = CheckRecurrentOperand(
        c, 1, RecurrentOperandShape(*s, 4 * s->hidden, s->input_size));
  }
  if (status.ok()) {
    status = CheckRecurrentOperand(
        c, 2, RecurrentOperandShape(*s, 4 * s->hidden, s->hidden));
  }
  for (int slot : {3, 4}) {
    if (status.ok()) {
      status = CheckRecurrentOperand(
          c, slot, RecurrentOperandShape(*s, 4 * s->hidden, 0));
    }
  }
  if (status.ok()) {
    status = CheckRecurrentOperand(c, 5,
                                   RecurrentOperandShape(*s, 3 * s->hidden, 0));
  }
  for (int slot : {6, 7}) {
    if (status.ok()) {
      status =
          CheckRecurrentOperand(c, slot, {s->directions, s->batch, s->hidden});
    }
  }
  if (!status.ok()) return status;
  DType dtype = c.operand(0).dtype;
  TensorType state{dtype, {s->directions, s->batch, s->hidden}};
  TensorType sequence{dtype, {s->steps, s->directions, s->batch, s->hidden}};
  if (c.operand(0).has_names()) {
    const auto& in = c.operand(0).names;
    state.names = {"directions", in[1], "hidden"};
    sequence.names = {in[0], "directions", in[1], "hidden"};
  }
  // The full sequence is validated whatever returnSequence says (#949).
  status = CheckResult(c, sequence);
  if (!status.ok()) return status;
  Types outputs = {state, state};
  if (c.attrs.GetBool("returnSequence", false)) outputs.push_back(sequence);
  return outputs;
}

absl::StatusOr<TensorType> SolveLstm(const InferContext& c, const TensorType*,
                                     int slot) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 4, true);
  if (!s.ok()) return s.status();
  TensorType p;
  switch (slot) {
    case 1:
      p.shape = RecurrentOperandShape(*s, 4 * s->hidden, s->input_size);
      break;
    case 2:
      p.shape = RecurrentOperandShape(*s, 4 * s->hidden, s->hidden);
      break;
    case 3:
    case 4:
      p.shape = RecurrentOperandShape(*s, 4 * s->hidden, 0);
      break;
    case 5:
      p.shape = RecurrentOperandShape(*s, 3 * s->hidden, 0);
      break;
    default:
      return absl::InvalidArgumentError("lstm cannot infer this operand");
  }
  return p;
}

}  // namespace

const ir::OpDef& LstmOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kLstm,
      .name = "lstm",
      .category = ir::OpCategory::kRecurrent,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "weight",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
                   {.name = "recurrentWeight",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight},
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
                    .param = ir::ParamRole::kBias},
                   {.name = "initialHiddenState",
                    .types = ir::kFloatTypes,
                    .optional = true},
                   {.name = "initialCellState",
                    .types = ir::kFloatTypes,
                    .optional = true}},
      .attrs = {{.name = "steps", .kind = ir::AttrKind::kInt, .required = true},
                {.name = "hiddenSize",
                 .kind = ir::AttrKind::kInt,
                 .required = true},
                {.name = "returnSequence", .kind = ir::AttrKind::kBool},
                {.name = "direction",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"forward", "backward", "both"}},
                {.name = "layout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"iofg", "ifgo"}},
                {.name = "activations",
                 .kind = ir::AttrKind::kEnums,
                 .choices = {"relu", "sigmoid", "tanh"}}},
      .infer = InferLstm,
      .solve = SolveLstm,
      .language_operands = {1, 2}};
  return def;
}

}  // namespace webnnm::ops
