// Parameter initialisation, deterministic in (seed, parameter index).
//
// He: normal with standard deviation sqrt(2 / fan_in); Glorot: normal with
// sqrt(2 / (fan_in + fan_out)); biases zeros, scales ones (the DAG's
// ParameterInfo says which, from the activation that follows). Normal
// numbers come from Philox4x32-10 keyed by the seed, counter (parameter,
// block), through Box–Muller using both variates of each pair.
#ifndef WEBNNM_ENGINE_TRAIN_INIT_H_
#define WEBNNM_ENGINE_TRAIN_INIT_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/dag/dag.h"
#include "engine/ir/graph.h"
#include "engine/train/state.h"

namespace webnnm::train {

std::vector<float> InitialValues(const ir::ParameterInfo& info, int64_t count,
                                 uint64_t seed, uint32_t parameter_index);

// Every parameter of the DAG (trainable and running statistics) with its
// initial values for `seed` (parameter index = position in dag.parameters);
// the parameters named in `scaled` are multiplied by `scale`.
Params InitialParameters(const dag::Dag& dag, uint64_t seed,
                         const std::set<std::string>& scaled = {},
                         double scale = 1.0);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_INIT_H_
