// Test helpers: a model's initial parameters (with zero momenta) and one
// training step of a StepConfig on a batch given by input name, run on the
// CPU backend (lr 0.5, scale 1, clipping statistics of a first step).
#ifndef WEBNNM_TESTS_TRAIN_STEP_HELPERS_H_
#define WEBNNM_TESTS_TRAIN_STEP_HELPERS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/train/graphs.h"
#include "engine/train/init.h"
#include "tests/train/run_graph.h"

namespace webnnm::train::testing {

// The parameters (seed 3) and zero momenta, by input name.
inline Values InitialState(const dag::Dag& dag) {
  Values state;
  uint32_t index = 0;
  for (const auto& [name, id] : TrainableParameters(dag)) {
    const ir::Node& node = dag.graph.node(id);
    int64_t count = 1;
    for (int64_t d : dag.graph.value(node.outputs[0]).type.shape) count *= d;
    std::vector<float> init = InitialValues(node.parameter, count, 3, index++);
    state[name] = std::vector<double>(init.begin(), init.end());
    state["momentum:" + name] = std::vector<double>(count, 0.0);
  }
  return state;
}

// One training step of `config` from `state` on `batch`: the outputs.
inline absl::StatusOr<Values> RunStep(const dag::Dag& dag,
                                      const StepConfig& config,
                                      const Values& state,
                                      const Values& batch) {
  absl::StatusOr<ir::Graph> graph = BuildTrainingGraph(dag, config);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<GraphRunner> runner = GraphRunner::Compile(*graph);
  if (!runner.ok()) return runner.status();
  Values inputs = state;
  for (const auto& [k, v] : batch) inputs[k] = v;
  inputs["in:lr"] = {0.5};
  inputs["in:scale"] = {1};
  inputs["in:clipMu"] = {0};
  inputs["in:clipSigma"] = {0};
  inputs["in:clipK"] = {4};
  inputs["in:clipFirst"] = {1};
  return runner->Run(inputs);
}

}  // namespace webnnm::train::testing

#endif  // WEBNNM_TESTS_TRAIN_STEP_HELPERS_H_
