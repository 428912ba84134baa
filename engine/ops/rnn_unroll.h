// Unrolling of the recurrent operations into WebNN operations, so that they
// can be differentiated step by step (OpDef::unroll; autodiff.h).
//
// The steps compute what the CPU kernel computes (backends/cpu/kernels/
// recurrent.cc, WebNN's emulation code): gates sliced from the weights by
// the layout (iofg | ifgo, zrn | rzn), activations from `activations`
// (default [sigmoid, tanh, tanh] for LSTM, [sigmoid, tanh] for GRU),
// peephole weights ordered i, o, f and reading the previous cell state,
// GRU's reset gate applied after (resetAfter, default) or before the
// recurrent product. gru/lstm run each direction over the steps (backward
// from the last; both = forward then backward) and place each step's
// hidden state at its input step's position.
#ifndef WEBNNM_ENGINE_OPS_RNN_UNROLL_H_
#define WEBNNM_ENGINE_OPS_RNN_UNROLL_H_

#include "absl/status/status.h"
#include "engine/ir/graph.h"
#include "engine/ir/rewriter.h"

namespace webnnm::ops {

// Replace `node` (lstmCell, gruCell, lstm or gru) by its steps.
absl::Status UnrollLstmCell(ir::GraphRewriter& rewriter, ir::NodeId node);
absl::Status UnrollGruCell(ir::GraphRewriter& rewriter, ir::NodeId node);
absl::Status UnrollLstm(ir::GraphRewriter& rewriter, ir::NodeId node);
absl::Status UnrollGru(ir::GraphRewriter& rewriter, ir::NodeId node);

// Replace `node` (lstm or gru) by its steps under a step mask: `mask` is a
// [steps, batch, 1] value, 1 for a row's real steps and 0 for its padding.
// A masked step leaves the hidden (and cell) state as it found it, so each
// direction's final state is the state after the row's last real step
// (backward: the padding at the end is passed over first and leaves the
// initial state), and its place in the output sequence holds zeros.
absl::Status UnrollMasked(ir::GraphRewriter& rewriter, ir::NodeId node,
                          ir::ValueId mask);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_RNN_UNROLL_H_
