// Lowering: the symbolic DAG of a model to a concrete graph that a backend
// compiles, for one batch size (and sequence length).
//
// Every batch and sequence dimension gets its size — in the inputs' types,
// in the attributes that carry them (reshape/expand `newShape`, recurrent
// `steps`) — and every operation's rule runs again on the concrete types, so
// a lowered graph is checked exactly like a graph built operation by
// operation. Outside training, nodes with an inference alias (dropout) are
// replaced by it, and whatever no output needs any more is dropped.
#ifndef WEBNNM_ENGINE_TRAIN_LOWER_H_
#define WEBNNM_ENGINE_TRAIN_LOWER_H_

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"

namespace webnnm::train {

struct LowerOptions {
  int64_t batch = 1;
  int64_t sequence = 1;   // for sequenced inputs
  bool training = false;  // keep dropout active
  // float16 parameters become float32 ones read through a cast to float16
  // (float32 master parameters: the optimizer updates float32 values, the
  // forward pass computes in float16 as the model says).
  bool float32_parameters = false;
  // Ragged sequences: an input kStepMaskInput, [sequence, batch, 1]
  // float32, is 1 for each row's real steps and 0 for its padding, and
  // every lstm and gru over the sequence is unrolled under it
  // (ops::UnrollMasked: padded steps leave the state unchanged; a returned
  // sequence holds zeros there). Other operations see the padded steps as
  // they are fed (zeros); the losses of sequenced outputs mask them
  // (graphs.h). A model without such a layer is InvalidArgument unless its
  // every step goes step-wise to sequenced outputs (BucketsKeepTheModel).
  bool step_mask = false;
};

inline constexpr char kStepMaskInput[] = "in:stepMask";

absl::StatusOr<ir::Graph> Lower(const dag::Dag& dag,
                                const LowerOptions& options,
                                const ir::Limits& limits = {});

// Marks dead every node that no output node needs; then compacts.
void CullUnused(ir::Graph& graph);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_LOWER_H_
