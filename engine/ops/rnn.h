// Shared rules of the recurrent operations gru, gruCell, lstm and lstmCell.
//
// `gates` is 3 for GRU and 4 for LSTM. Every size involving the hidden size
// is checked (gates * hiddenSize and 2 * gates * hiddenSize must be valid
// dimensions, WebNN issue 625), and for gru and lstm the full-sequence output
// [steps, directions, batch, hiddenSize] is validated whether or not
// returnSequence asks for it (WebNN issue 949).
//
// In the model language gru and lstm run over a sequenced input: the DAG
// builder transposes [batch, sequence, features] to WebNN's
// [steps, batch, features] and back, and the layer's result is the last
// hidden state as [batch, directions * hiddenSize] (or every step's, as
// [batch, sequence, directions * hiddenSize], with returnSequence=true).
#ifndef WEBNNM_ENGINE_OPS_RNN_H_
#define WEBNNM_ENGINE_OPS_RNN_H_

#include "engine/ops/rules.h"

namespace webnnm::ops {

struct RecurrentShape {
  int gates;           // 3 (GRU) or 4 (LSTM)
  bool sequence;       // gru/lstm (true) or a cell (false)
  int64_t hidden = 0;  // hiddenSize
  int64_t directions = 1;
  int64_t steps = 0;  // sequence ops: input dimension 0
  int64_t batch = 0;
  int64_t input_size = 0;
};

// Reads and checks hiddenSize, direction, steps and the input's shape.
absl::StatusOr<RecurrentShape> ReadRecurrentShape(const InferContext& c,
                                                  int gates, bool sequence);

// The shape of one operand of a recurrent operation, as a row of its
// operand table: `rows` is a multiple of hiddenSize (gates * hiddenSize for
// weights and biases), `columns` the input size, the hidden size or none
// (a vector). Sequence operations prefix the number of directions. States
// are [batch, hiddenSize] ([directions, batch, hiddenSize] for sequences).
struct RecurrentOperand {
  enum class Kind { kWeight, kState };
  enum class Columns { kNone, kInputSize, kHidden };
  int slot;
  Kind kind = Kind::kWeight;
  int64_t rows = 0;  // multiple of hiddenSize
  Columns columns = Columns::kNone;
};

// The shape operand `operand` must have.
std::vector<int64_t> RecurrentOperandShape(const RecurrentShape& s,
                                           const RecurrentOperand& operand);

// Checks every present operand of the table.
absl::Status CheckRecurrentOperands(const InferContext& c,
                                    const RecurrentShape& s,
                                    const std::vector<RecurrentOperand>& table);

// The shape of the parameter (or zero state) in `slot`, from the table.
absl::StatusOr<TensorType> SolveRecurrentOperand(
    const InferContext& c, int gates, bool sequence,
    const std::vector<RecurrentOperand>& table, int slot);

// Operand specs shared by the recurrent operations.
ir::OperandSpec RecurrentWeightSpec(const char* name);
ir::OperandSpec RecurrentBiasSpec(const char* name);
ir::OperandSpec RecurrentStateSpec(const char* name, bool zeros_if_absent);

// Checks the activations option: `count` names among relu, sigmoid, tanh.
absl::Status CheckActivations(const InferContext& c, size_t count);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_RNN_H_
