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
#include <vector>

#include "engine/ir/graph.h"

namespace webnnm::train {

std::vector<float> InitialValues(const ir::ParameterInfo& info, int64_t count,
                                 uint64_t seed, uint32_t parameter_index);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_INIT_H_
