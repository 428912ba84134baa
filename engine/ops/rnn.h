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

// Checks the operand in `slot` against `shape` (directions prefix included
// for sequence ops) when present.
absl::Status CheckRecurrentOperand(const InferContext& c, int slot,
                                   const std::vector<int64_t>& shape);

// The expected shape of a weight-like operand of `rows` x `columns` rows
// (columns 0: a vector), with the directions prefix for sequence ops.
std::vector<int64_t> RecurrentOperandShape(const RecurrentShape& s,
                                           int64_t rows, int64_t columns);

// Checks the activations option: `count` names among relu, sigmoid, tanh.
absl::Status CheckActivations(const InferContext& c, size_t count);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_RNN_H_
