// Losses tuned after scouting (internal to engine/train): what the errors
// at the chosen start (scout.h ProbeErrors, over up to kProbeBatches
// training batches) say about each output's loss, as the specification's
// loss table asks:
//   - Huber instead of MSE for a regression output whose loss the expert
//     system chose, when scouting sees high variance in the gradients: the
//     gradient of MSE at the output is each sample's error e, so the
//     spread of the gradients' squared norms is that of e² — its relative
//     variance is the errors' kurtosis less 1 — and a kurtosis above
//     kHuberKurtosis (over at least kMinProbeErrors errors) says that a
//     few outliers dominate the gradient (normal errors: 3; an exponential
//     distribution's long tail: 9; 3% of the targets ten deviations off:
//     about 20).
//   - Huber's δ, unless model:delta gives it: 1.345 σ of the errors (the
//     classical tuning, 95% as efficient as MSE for normal errors, MAE's
//     robustness beyond), in the units the loss sees (standardized
//     targets: theirs).
//   - focal loss's γ, unless model:gamma gives it: 2 (the value of the
//     focal loss paper) when the errors 1 − p_t at the start are alike,
//     rising to 4 as their σ reaches 0.3: a start that already tells easy
//     examples from hard ones gains from focusing harder.
// Each change is a decision naming its numbers, and is kept in the run's
// state (TrainState::tuned_losses) so that a resumed run and its tests use
// the same losses.
#ifndef WEBNNM_ENGINE_EXPERT_LOSS_TUNING_H_
#define WEBNNM_ENGINE_EXPERT_LOSS_TUNING_H_

#include <map>
#include <string>
#include <vector>

#include "engine/dag/dag.h"
#include "engine/expert/scout.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

inline constexpr double kHuberKurtosis = 10;
inline constexpr int64_t kMinProbeErrors = 64;
inline constexpr double kHuberEfficiency = 1.345;

struct LossTuning {
  std::vector<Decision> decisions;
  std::vector<TunedLoss> tuned;  // the outputs whose loss changed
};

// Tunes `specs` (one per DAG output, in its order) from the probes by
// output name.
LossTuning TuneLosses(const dag::Dag& dag, std::vector<OutputSpec>& specs,
                      const std::map<std::string, ErrorProbe>& probes);

// Applies a run's tuned losses (a resumed run, its tests) to `specs`.
void ApplyTunedLosses(const std::vector<TunedLoss>& tuned,
                      std::vector<OutputSpec>& specs);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_LOSS_TUNING_H_
