// gruCell: one step of a gated recurrent unit.
// Operands: input ([batch, inputSize]; float32, float16), weight
// ([3 * hiddenSize, inputSize]), recurrentWeight ([3 * hiddenSize,
// hiddenSize]), hiddenState ([batch, hiddenSize]; zeros when the model
// leaves it out), bias and recurrentBias (optional, [3 * hiddenSize]).
// Options: hiddenSize (required), resetAfter (default true), layout (zrn |
// rzn), activations (two of relu, sigmoid, tanh).
// Result: the new hidden state [batch, hiddenSize].
#include "engine/ops/rnn.h"
#include "engine/ops/rnn_unroll.h"

namespace webnnm::ops {
namespace {

using Columns = RecurrentOperand::Columns;

const std::vector<RecurrentOperand>& Table() {
  static const auto* table = new std::vector<RecurrentOperand>{
      {.slot = 1, .rows = 3, .columns = Columns::kInputSize},
      {.slot = 2, .rows = 3, .columns = Columns::kHidden},
      {.slot = 3, .kind = RecurrentOperand::Kind::kState},
      {.slot = 4, .rows = 3},
      {.slot = 5, .rows = 3}};
  return *table;
}

absl::StatusOr<Types> InferGruCell(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 3, false);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "zrn").status();
  if (status.ok()) status = CheckActivations(c, 2);
  if (status.ok()) status = CheckRecurrentOperands(c, *s, Table());
  if (!status.ok()) return status;
  TensorType out{c.operand(0).dtype, {s->batch, s->hidden}};
  if (c.operand(0).has_names()) out.names = {c.operand(0).names[0], "hidden"};
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveGruCell(const InferContext& c,
                                        const TensorType*, int slot) {
  return SolveRecurrentOperand(c, 3, false, Table(), slot);
}

}  // namespace

const ir::OpDef& GruCellOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGruCell,
      .name = "gruCell",
      .category = ir::OpCategory::kRecurrent,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   RecurrentWeightSpec("weight"),
                   RecurrentWeightSpec("recurrentWeight"),
                   RecurrentStateSpec("hiddenState", true),
                   RecurrentBiasSpec("bias"),
                   RecurrentBiasSpec("recurrentBias")},
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
      .language_operands = {1, 2},
      .unroll = UnrollGruCell};
  return def;
}

}  // namespace webnnm::ops
