// The pieces the training-step and evaluation graphs are built of
// (graphs.cc), internal to engine/train: the model's outputs and their
// losses, scoring a sequenced output a step at a time, which parameters
// form the final layer, AGC, and the scouting graph's dead ratio.
#ifndef WEBNNM_ENGINE_TRAIN_GRAPH_PARTS_H_
#define WEBNNM_ENGINE_TRAIN_GRAPH_PARTS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/ir/graph.h"
#include "engine/ir/graph_ops.h"
#include "engine/train/graphs.h"
#include "engine/train/loss.h"

namespace webnnm::train::internal {

// The model outputs of a lowered graph by block name.
std::map<std::string, ir::ValueId> Outputs(const ir::Graph& graph);

// A float32 scalar.
ir::TensorType Scalar32();

// The value of the graph's input `name` (kNoValue without one).
ir::ValueId InputNamed(const ir::Graph& graph, const std::string& name);

// One output's loss, with what it was computed from.
struct OutputLoss {
  LossInputs inputs;
  LossValue loss;
};

// The loss of the output `spec` names (its value in `outputs`), over the
// rows `mask` marks; a sequenced output's over its steps.
absl::StatusOr<OutputLoss> LossOf(
    ir::GraphOps& ops, const dag::Dag& dag,
    const std::map<std::string, ir::ValueId>& outputs, const OutputSpec& spec,
    ir::ValueId mask);

// The axes a parameter's norm is taken over for AGC: all but its output
// units' axis (none for vectors: each element is a unit).
std::vector<int> AgcAxes(const ir::Graph& graph, ir::ValueId param);

// Whether each value feeds, further on, an operation that reads a
// trainable weight; a parameter is in the final layer when none of its
// readers does (InFinalLayer).
std::vector<bool> FeedsWeightedOps(const ir::Graph& graph);
bool InFinalLayer(const ir::Graph& graph, const std::vector<bool>& feeds,
                  ir::ValueId param);

// The scouting graph's dead ratio (StepConfig::scouting).
absl::StatusOr<ir::ValueId> DeadRatio(
    ir::GraphOps& ops, const std::map<std::string, ir::ValueId>& outputs,
    ir::ValueId mask);

// `g` clipped unit by unit to lambda·max(|w|, 1e-3) (AGC).
absl::StatusOr<ir::ValueId> AgcClip(ir::GraphOps& ops, ir::ValueId w,
                                    ir::ValueId g, const std::vector<int>& axes,
                                    double lambda);

}  // namespace webnnm::train::internal

#endif  // WEBNNM_ENGINE_TRAIN_GRAPH_PARTS_H_
