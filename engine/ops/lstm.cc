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
#include "engine/ops/rnn_unroll.h"

namespace webnnm::ops {
namespace {

using Columns = RecurrentOperand::Columns;

const std::vector<RecurrentOperand>& Table() {
  static const auto* table = new std::vector<RecurrentOperand>{
      {.slot = 1, .rows = 4, .columns = Columns::kInputSize},
      {.slot = 2, .rows = 4, .columns = Columns::kHidden},
      {.slot = 3, .rows = 4},
      {.slot = 4, .rows = 4},
      {.slot = 5, .rows = 3},
      {.slot = 6, .kind = RecurrentOperand::Kind::kState},
      {.slot = 7, .kind = RecurrentOperand::Kind::kState}};
  return *table;
}

absl::StatusOr<Types> InferLstm(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 4, true);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "iofg").status();
  if (status.ok()) status = CheckActivations(c, 3);
  if (status.ok()) status = CheckRecurrentOperands(c, *s, Table());
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
  return SolveRecurrentOperand(c, 4, true, Table(), slot);
}

}  // namespace

const ir::OpDef& LstmOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kLstm,
      .name = "lstm",
      .category = ir::OpCategory::kRecurrent,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   RecurrentWeightSpec("weight"),
                   RecurrentWeightSpec("recurrentWeight"),
                   RecurrentBiasSpec("bias"),
                   RecurrentBiasSpec("recurrentBias"),
                   RecurrentBiasSpec("peepholeWeight"),
                   RecurrentStateSpec("initialHiddenState", false),
                   RecurrentStateSpec("initialCellState", false)},
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
      .language_operands = {1, 2},
      .unroll = UnrollLstm};
  return def;
}

}  // namespace webnnm::ops
