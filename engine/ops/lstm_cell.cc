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
#include "engine/ops/rnn_unroll.h"

namespace webnnm::ops {
namespace {

using Columns = RecurrentOperand::Columns;

const std::vector<RecurrentOperand>& Table() {
  static const auto* table = new std::vector<RecurrentOperand>{
      {.slot = 1, .rows = 4, .columns = Columns::kInputSize},
      {.slot = 2, .rows = 4, .columns = Columns::kHidden},
      {.slot = 3, .kind = RecurrentOperand::Kind::kState},
      {.slot = 4, .kind = RecurrentOperand::Kind::kState},
      {.slot = 5, .rows = 4},
      {.slot = 6, .rows = 4},
      {.slot = 7, .rows = 3}};
  return *table;
}

absl::StatusOr<Types> InferLstmCell(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 4, false);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "iofg").status();
  if (status.ok()) status = CheckActivations(c, 3);
  if (status.ok()) status = CheckRecurrentOperands(c, *s, Table());
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
  return SolveRecurrentOperand(c, 4, false, Table(), slot);
}

}  // namespace

const ir::OpDef& LstmCellOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kLstmCell,
      .name = "lstmCell",
      .category = ir::OpCategory::kRecurrent,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   RecurrentWeightSpec("weight"),
                   RecurrentWeightSpec("recurrentWeight"),
                   RecurrentStateSpec("hiddenState", true),
                   RecurrentStateSpec("cellState", true),
                   RecurrentBiasSpec("bias"),
                   RecurrentBiasSpec("recurrentBias"),
                   RecurrentBiasSpec("peepholeWeight")},
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
      .language_operands = {1, 2},
      .unroll = UnrollLstmCell};
  return def;
}

}  // namespace webnnm::ops
