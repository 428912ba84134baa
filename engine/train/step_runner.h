// The compiled training step and its bindings (internal to engine/train):
// loads a TrainState's parameters, momenta and running statistics into
// the step's inputs, runs one step on a batch — feeding the learning rate,
// the loss scale and the clipping state, carrying the new values over,
// updating the loss-scaling and clipping state on the host — and stores
// the values back into a state. The executable carries the parameters,
// momenta and running statistics from one step to the next itself
// (backends::CompileOptions::carries): the host feeds the batch and a few
// scalars and reads a few scalars back.
//
// With a Collective (data parallelism, replicated_step.cc) the step is two
// executables (graphs.h StepPart): each replica computes the gradients of
// its share of the global batch (replica r takes rows [r·b, (r+1)·b) of
// it, b = ceil(batch / replicas)), the replicas sum them (and the shared
// losses, the classification counts, the batch statistics weighted by
// their rows) in one allreduce, and every replica applies the same update
// to the same parameters: they stay bit-identical.
#ifndef WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_
#define WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/train/collective.h"
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
                                         int64_t steps = 0,
                                         Collective* collective = nullptr);

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
  // With a Collective, `stop` is this replica's wish to stop; `stopped`
  // says that some replica wished it (the step then applied nothing, and
  // the loss is NaN).
  struct Result {
    double loss = 0;
    std::vector<double> correct, scored;
    bool stopped = false;
  };
  absl::StatusOr<Result> Step(const std::vector<int64_t>& samples,
                              int64_t begin, double lr, bool scaling,
                              int growth_interval, TrainState& state,
                              bool stop = false);

 private:
  struct Binding {
    std::string name;
    int in = -1, out = -1, m_in = -1, m_out = -1;
    // Split: the gradient executable's input of the value, its gradient
    // (or batch statistics) output, and the update's input of that; the
    // value's floats.
    int g_in = -1, g_out = -1, u_in = -1;
    size_t count = 0;
  };
  // The two executables of a replicated step (replicated_step.cc).
  static absl::StatusOr<StepRunner> MakeSplit(
      const dag::Dag& dag, const Dataset& data, const StepConfig& config,
      int threads, backends::Backend& backend, int64_t steps,
      Collective& collective);
  absl::StatusOr<Result> SplitStep(const std::vector<int64_t>& samples,
                                   int64_t begin, double lr, bool scaling,
                                   int growth_interval, TrainState& state,
                                   bool stop);
  // Copies the update's current parameters and statistics into the
  // gradient executable.
  absl::Status ShareParameters();
  // After a run of the update: the skipped step's scale, or the clipping
  // and scale state of an applied one (false: skipped).
  bool AfterUpdate(bool scaling, int growth_interval, TrainState& state);
  std::unique_ptr<backends::Executable> exe_;
  std::unique_ptr<Feeder> feeder_;
  std::vector<Binding> trained_;  // with momenta
  std::vector<Binding> running_;  // batch normalization's statistics
  int lr_in_ = -1, scale_in_ = -1, mu_in_ = -1, sigma_in_ = -1, k_in_ = -1,
      first_in_ = -1;
  int loss_out_ = -1, finite_out_ = -1, mu_out_ = -1, sigma_out_ = -1;
  std::vector<int> correct_out_;  // per output; -1: regression
  std::vector<int> scored_out_;   // per output; -1: regression
  // Split (a Collective): exe_ is the update, grad_exe_ the gradients.
  Collective* collective_ = nullptr;
  std::unique_ptr<backends::Executable> grad_exe_;
  int64_t batch_ = 0, share_rows_ = 0;
  std::vector<int> share_in_;  // per output: "in:share:<output>"
  int grad_scale_in_ = -1, grad_loss_out_ = -1;
  std::vector<float> sum_;  // what the replicas sum, one step's
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_
