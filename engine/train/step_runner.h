// The compiled training step and its bindings (internal to engine/train):
// loads a TrainState's parameters, momenta and running statistics into
// the step's inputs, runs one step on a batch — feeding the learning rate,
// the loss scale and the clipping state, carrying the new values over,
// updating the loss-scaling and clipping state on the host — and stores
// the values back into a state. The executable carries the parameters,
// momenta and running statistics from one step to the next itself
// (backends::CompileOptions::carries): the host feeds the batch and a few
// scalars and reads a few scalars back.
#ifndef WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_
#define WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/train/dataset.h"
#include "engine/train/feeder.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

class StepRunner {
 public:
  // Builds and compiles the step for `config` (with uncertainty weights
  // when config.uncertainty_weights). `steps`: with ragged sequences, the
  // steps its batches are padded to (a length bucket, buckets.h; 0: the
  // dataset's padded length); each batch's sequences must fit them.
  static absl::StatusOr<StepRunner> Make(const dag::Dag& dag,
                                         const Dataset& data,
                                         const StepConfig& config, int threads,
                                         backends::Backend& backend,
                                         int64_t steps = 0);

  // Names of what the step trains: the DAG's trainable parameters, then
  // "uncertainty:<output>" weights.
  std::vector<std::string> trained() const;

  // Writes the state's values into the step and sets the random state to
  // (seed, state.step); fails when a value does not fit.
  absl::Status Load(const TrainState& state, uint64_t seed);
  // Reads the current parameters, momenta and running statistics back
  // (from the device, on one).
  absl::Status Store(TrainState& state);

  // One step on samples[begin, begin + batch) at learning rate `lr`:
  // applies the update when the gradients are finite (and then moves the
  // clipping statistics and, with `scaling`, grows the scale after
  // `growth_interval` clean steps), else halves the scale. Advances
  // state.step. Returns the batch's loss (NaN for a skipped step) and, per
  // output of the step config, its right rows and the rows scored (steps
  // for a sequenced output; both -1 for a regression output).
  struct Result {
    double loss = 0;
    std::vector<double> correct, scored;
  };
  absl::StatusOr<Result> Step(const std::vector<int64_t>& samples,
                              int64_t begin, double lr, bool scaling,
                              int growth_interval, TrainState& state);

 private:
  struct Binding {
    std::string name;
    int in = -1, out = -1, m_in = -1, m_out = -1;
  };
  std::unique_ptr<backends::Executable> exe_;
  std::unique_ptr<Feeder> feeder_;
  std::vector<Binding> trained_;  // with momenta
  std::vector<Binding> running_;  // batch normalization's statistics
  int lr_in_ = -1, scale_in_ = -1, mu_in_ = -1, sigma_in_ = -1, k_in_ = -1,
      first_in_ = -1;
  int loss_out_ = -1, finite_out_ = -1, mu_out_ = -1, sigma_out_ = -1;
  std::vector<int> correct_out_;  // per output; -1: regression
  std::vector<int> scored_out_;   // per output; -1: regression
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_
