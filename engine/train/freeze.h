// Transfer learning: freeze multipliers (the specification's "Transfer
// Learning"; ERRATA 19a).
//
// Each operation node gets dIn, the most nodes on a path from an input to
// it, and dOut, the most nodes on a path from it to an output; a
// parameter's position is r = dIn / (dIn + dOut) of the operation that
// reads it (the largest over its readers). With freeze = r0 in [0, 1], its
// learning-rate multiplier is sin(π/2 · (r − r0) / (1 − r0)) for r > r0 and
// 0 otherwise (every parameter frozen when r0 = 1), snapped to the nearest
// of the five buckets sin(π/2 · k/4), k = 0..4 (0, 0.383, 0.707, 0.924, 1).
#ifndef WEBNNM_ENGINE_TRAIN_FREEZE_H_
#define WEBNNM_ENGINE_TRAIN_FREEZE_H_

#include <map>
#include <string>

#include "engine/dag/dag.h"

namespace webnnm::train {

// The multiplier of every trainable parameter, by name (empty for r0 = 0:
// every multiplier is 1).
std::map<std::string, double> FreezeMultipliers(const dag::Dag& dag,
                                                double freeze);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_FREEZE_H_
