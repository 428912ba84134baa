// Scouting for good starting points (the specification's section of that
// name), internal to engine/train.
//
// A Scouter runs the scouting graph (forward, loss and backward; graphs.h)
// on training batches. Measure() rates a starting point on the first
// training batch: its loss, the ratio of the first and the last weight's
// gradient norms, and the dead ratio, scored
//     -10 |log10 gradient ratio| - 100 dead ratio - loss
// (higher is healthier). RankCandidates() rates `seeds` candidates that way,
// best first. InputsMatter() tells whether parameters still pass a gradient
// to any first-layer weight (a weight read by the first heavy operation
// after an input) on any of the first training batches: when none does,
// every unit of some layer is off for all those samples, the network
// computes the same output whatever its input, and the trainer restarts
// from the next candidate instead of training a dead network.
#ifndef WEBNNM_ENGINE_EXPERT_SCOUT_H_
#define WEBNNM_ENGINE_EXPERT_SCOUT_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/feeder.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

// InputsMatter() looks at the first training batches up to this many
// samples (at least one batch).
inline constexpr int64_t kLivenessSamples = 256;

// The trainable weights read by the first heavy operations (matrix and
// convolution) after an input, through movement and cast operations only.
std::set<std::string> FirstLayerWeights(const dag::Dag& dag);

// The starting point of scouting candidate `k` (0-based) for the run's
// seed: InitialParameters() with the seed seed * 1000003 + k, the first
// layer's weights scaled by `init_scale`.
Params CandidateParameters(const dag::Dag& dag, uint64_t seed, int k,
                           const std::set<std::string>& first_layer,
                           double init_scale);

struct Health {
  double loss = 0, gradient_ratio = 1, dead_ratio = 0;
  double score = 0;  // non-finite when the loss or a norm is
};

// The errors of one output (loss.h ErrorMoments) over a few training
// batches: their mean, standard deviation and kurtosis (the fourth central
// moment over the variance squared: 3 for normal errors, more for heavy
// tails).
struct ErrorProbe {
  double mean = 0, stddev = 0, kurtosis = 0;
  int64_t count = 0;  // errors seen
};

// ProbeErrors() reads at most this many training batches.
inline constexpr int kProbeBatches = 8;

struct RankedCandidate {
  int k = 0;  // 0-based candidate
  Health health;
};

class Scouter {
 public:
  // Compiles the scouting graph of `config` with `threads` threads and
  // binds a feeder for `data`'s training subset in batches of config.batch.
  static absl::StatusOr<Scouter> Make(const dag::Dag& dag, const Dataset& data,
                                      const std::vector<OutputSpec>& specs,
                                      const StepConfig& config, int threads,
                                      backends::Backend& backend);
  Scouter(Scouter&&) = default;
  Scouter& operator=(Scouter&&) = default;

  // The health of `params` on the first training batch (gradients with the
  // loss scaled by 1).
  absl::StatusOr<Health> Measure(const Params& params);

  // Candidates 0 .. seeds-1 with finite scores, best first (ties: the lower
  // k first). With a `collective` (data parallelism), replica r measures
  // the candidates k ≡ r (mod replicas) and the replicas sum the table of
  // healths: every replica ranks alike, as one process would.
  absl::StatusOr<std::vector<RankedCandidate>> RankCandidates(
      uint64_t seed, int seeds, const std::set<std::string>& first_layer,
      double init_scale, Collective* collective = nullptr);

  // Each output's errors at `params` (loss scaled by 1) over the first
  // kProbeBatches training batches (fewer when the training subset has
  // fewer), by output name; outputs whose loss has no such error are left
  // out.
  absl::StatusOr<std::map<std::string, ErrorProbe>> ProbeErrors(
      const Params& params);

  // How many samples InputsMatter() looks at: whole batches up to
  // kLivenessSamples, at most the training subset.
  int64_t LivenessSamples() const;
  // Whether some weight in `first_layer` gets a non-zero gradient from
  // `params` on one of the first LivenessSamples() training samples, the
  // loss scaled by `loss_scale` as in training (so float16 gradients do not
  // underflow) and unscaled before the norms. A model without such weights
  // has nothing to judge: true.
  absl::StatusOr<bool> InputsMatter(const Params& params,
                                    const std::set<std::string>& first_layer,
                                    double loss_scale);

 private:
  Scouter() = default;
  absl::Status Load(const Params& params, double loss_scale, int64_t batch);

  const dag::Dag* dag_ = nullptr;
  const Dataset* data_ = nullptr;
  int64_t batch_ = 1;
  std::unique_ptr<backends::Executable> exe_;
  std::unique_ptr<Feeder> feeder_;
  int64_t loaded_batch_ = -1;         // the training batch now in the inputs
  std::vector<std::string> weights_;  // every trainable weight, DAG order
  int loss_ = -1, dead_ = -1, scale_ = -1;
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_SCOUT_H_
