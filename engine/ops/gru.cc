// gru: a gated recurrent unit run over a whole sequence.
// Operands: input ([steps, batch, inputSize]; float32, float16), weight
// ([directions, 3 * hiddenSize, inputSize]), recurrentWeight ([directions,
// 3 * hiddenSize, hiddenSize]), bias and recurrentBias (optional,
// [directions, 3 * hiddenSize]), initialHiddenState (optional, [directions,
// batch, hiddenSize]).
// Options: steps, hiddenSize (required), resetAfter (default true),
// returnSequence (default false), direction (forward | backward | both),
// layout (zrn | rzn, default zrn), activations (two of relu, sigmoid, tanh;
// default [sigmoid, tanh]).
// Results: the last hidden state [directions, batch, hiddenSize] and, with
// returnSequence, every step's [steps, directions, batch, hiddenSize].
// Trainable weights and biases get the shapes above (Glorot, zeros).
#include "engine/ops/rnn.h"
#include "engine/ops/rnn_unroll.h"

namespace webnnm::ops {
namespace {

using Columns = RecurrentOperand::Columns;

const std::vector<RecurrentOperand>& Table() {
  static const auto* table = new std::vector<RecurrentOperand>{
      {.slot = 1, .rows = 3, .columns = Columns::kInputSize},
      {.slot = 2, .rows = 3, .columns = Columns::kHidden},
      {.slot = 3, .rows = 3},
      {.slot = 4, .rows = 3},
      {.slot = 5, .kind = RecurrentOperand::Kind::kState}};
  return *table;
}

absl::StatusOr<Types> InferGru(const InferContext& c) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, 3, true);
  if (!s.ok()) return s.status();
  absl::Status status = EnumAttr(c, "layout", "zrn").status();
  if (status.ok()) status = CheckActivations(c, 2);
  if (status.ok()) status = CheckRecurrentOperands(c, *s, Table());
  if (!status.ok()) return status;
  DType dtype = c.operand(0).dtype;
  TensorType hidden{dtype, {s->directions, s->batch, s->hidden}};
  TensorType sequence{dtype, {s->steps, s->directions, s->batch, s->hidden}};
  if (c.operand(0).has_names()) {
    const auto& in = c.operand(0).names;
    hidden.names = {"directions", in[1], "hidden"};
    sequence.names = {in[0], "directions", in[1], "hidden"};
  }
  // The full sequence is validated whatever returnSequence says (#949).
  status = CheckResult(c, sequence);
  if (!status.ok()) return status;
  Types outputs = {hidden};
  if (c.attrs.GetBool("returnSequence", false)) outputs.push_back(sequence);
  return outputs;
}

absl::StatusOr<TensorType> SolveGru(const InferContext& c, const TensorType*,
                                    int slot) {
  return SolveRecurrentOperand(c, 3, true, Table(), slot);
}

}  // namespace

const ir::OpDef& GruOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGru,
      .name = "gru",
      .category = ir::OpCategory::kRecurrent,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   RecurrentWeightSpec("weight"),
                   RecurrentWeightSpec("recurrentWeight"),
                   RecurrentBiasSpec("bias"),
                   RecurrentBiasSpec("recurrentBias"),
                   RecurrentStateSpec("initialHiddenState", false)},
      .attrs = {{.name = "steps", .kind = ir::AttrKind::kInt, .required = true},
                {.name = "hiddenSize",
                 .kind = ir::AttrKind::kInt,
                 .required = true},
                {.name = "resetAfter", .kind = ir::AttrKind::kBool},
                {.name = "returnSequence", .kind = ir::AttrKind::kBool},
                {.name = "direction",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"forward", "backward", "both"}},
                {.name = "layout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"zrn", "rzn"}},
                {.name = "activations",
                 .kind = ir::AttrKind::kEnums,
                 .choices = {"relu", "sigmoid", "tanh"}}},
      .infer = InferGru,
      .solve = SolveGru,
      .language_operands = {1, 2},
      .unroll = UnrollGru};
  return def;
}

}  // namespace webnnm::ops
