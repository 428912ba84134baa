#include "engine/ops/rnn.h"

namespace webnnm::ops {

absl::StatusOr<RecurrentShape> ReadRecurrentShape(const InferContext& c,
                                                  int gates, bool sequence) {
  RecurrentShape s{.gates = gates, .sequence = sequence};
  s.hidden = c.attrs.GetInt("hiddenSize", 0);
  if (s.hidden < 1) {
    return AttrError("hiddenSize", StrCat(c.op.name,
                                          " needs a positive "
                                          "hiddenSize"));
  }
  for (int64_t factor : {int64_t{gates}, int64_t{2 * gates}}) {
    absl::StatusOr<int64_t> rows =
        CheckedMulDims(s.hidden, factor, "the gate size");
    if (!rows.ok() || *rows > c.limits.max_dimension) {
      return AttrError(
          "hiddenSize",
          StrCat(c.op.name, " hiddenSize ", s.hidden, " is too large: ", factor,
                 " x hiddenSize exceeds the dimension limit"));
    }
  }
  absl::Status status = CheckRankIs(c, 0, sequence ? 3 : 2);
  if (!status.ok()) return status;
  const TensorType& input = c.operand(0);
  if (sequence) {
    absl::StatusOr<std::string> direction = EnumAttr(c, "direction", "forward");
    if (!direction.ok()) return direction.status();
    s.directions = *direction == "both" ? 2 : 1;
    s.steps = c.attrs.GetInt("steps", 0);
    if (s.steps == 0 || (s.steps < 0 && s.steps != ir::kSequenceDim)) {
      return AttrError("steps", StrCat(c.op.name, " needs positive steps"));
    }
    if (input.shape[0] != s.steps) {
      return OperandError(0,
                          StrCat(c.op.name, " steps ", ir::DimToString(s.steps),
                                 " differ from the input's first "
                                 "dimension ",
                                 ir::DimToString(input.shape[0])));
    }
    s.batch = input.shape[1];
    s.input_size = input.shape[2];
  } else {
    s.batch = input.shape[0];
    s.input_size = input.shape[1];
  }
  if (ir::IsSymbolic(s.input_size)) {
    return OperandError(0, StrCat(c.op.name,
                                  " input features must have a "
                                  "fixed size"));
  }
  return s;
}

std::vector<int64_t> RecurrentOperandShape(const RecurrentShape& s,
                                           const RecurrentOperand& operand) {
  std::vector<int64_t> shape;
  if (s.sequence) shape.push_back(s.directions);
  if (operand.kind == RecurrentOperand::Kind::kState) {
    shape.push_back(s.batch);
    shape.push_back(s.hidden);
    return shape;
  }
  shape.push_back(operand.rows * s.hidden);  // no overflow: ReadRecurrentShape
  switch (operand.columns) {
    case RecurrentOperand::Columns::kNone:
      break;
    case RecurrentOperand::Columns::kInputSize:
      shape.push_back(s.input_size);
      break;
    case RecurrentOperand::Columns::kHidden:
      shape.push_back(s.hidden);
      break;
  }
  return shape;
}

absl::Status CheckRecurrentOperands(
    const InferContext& c, const RecurrentShape& s,
    const std::vector<RecurrentOperand>& table) {
  for (const RecurrentOperand& operand : table) {
    if (!c.has(operand.slot)) continue;
    absl::Status status =
        CheckShapeIs(c, operand.slot, RecurrentOperandShape(s, operand));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorType> SolveRecurrentOperand(
    const InferContext& c, int gates, bool sequence,
    const std::vector<RecurrentOperand>& table, int slot) {
  absl::StatusOr<RecurrentShape> s = ReadRecurrentShape(c, gates, sequence);
  if (!s.ok()) return s.status();
  for (const RecurrentOperand& operand : table) {
    if (operand.slot != slot) continue;
    TensorType type;
    type.shape = RecurrentOperandShape(*s, operand);
    return type;
  }
  return absl::InvalidArgumentError(
      StrCat(c.op.name, " cannot infer this operand"));
}

ir::OperandSpec RecurrentWeightSpec(const char* name) {
  return {.name = name,
          .types = ir::kFloatTypes,
          .param = ir::ParamRole::kGlorotWeight};
}

ir::OperandSpec RecurrentBiasSpec(const char* name) {
  return {.name = name,
          .types = ir::kFloatTypes,
          .optional = true,
          .param = ir::ParamRole::kBias};
}

ir::OperandSpec RecurrentStateSpec(const char* name, bool zeros_if_absent) {
  return {.name = name,
          .types = ir::kFloatTypes,
          .optional = !zeros_if_absent,
          .zeros_if_absent = zeros_if_absent};
}

absl::Status CheckActivations(const InferContext& c, size_t count) {
  std::vector<std::string> activations = c.attrs.GetStrings("activations", {});
  if (activations.empty()) return absl::OkStatus();
  if (activations.size() != count) {
    return AttrError("activations",
                     StrCat(c.op.name, " takes ", count, " activations, not ",
                            activations.size()));
  }
  for (const std::string& a : activations) {
    if (a != "relu" && a != "sigmoid" && a != "tanh") {
      return AttrError("activations",
                       StrCat(c.op.name,
                              " activations must be relu, sigmoid "
                              "or tanh, not '",
                              a, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace webnnm::ops
