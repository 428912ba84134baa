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
//
// With several threads (and no Collective) the step of a model heavy
// enough is split the same way among the threads of one process
// (threaded_step.cc): each thread computes the gradients of its share of
// the batch on an executable of its own, one thread each, reading the
// parameters where the update keeps them (backends::SharedInput); the
// threads sum the gradients slice by slice, in rank order; the update runs
// once. Results equal those of as many replicas (the same shares, sums and
// masks), and differ from one thread's in float summation order only.
// Models with batch statistics (batch normalization would see each share's
// rows alone) run as one executable of `threads` threads; light steps
// (kThreadedMinimumFlops, kThreadedMinimumFlopsPerParameter) on one
// thread.
#ifndef WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_
#define WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/collective.h"
#include "engine/train/feeder.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"
#include "engine/train/step_team.h"

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
    // By output (inline: a step allocates nothing for a few outputs).
    absl::InlinedVector<double, 4> correct, scored;
    bool stopped = false;
  };
  absl::StatusOr<Result> Step(const std::vector<int64_t>& samples,
                              int64_t begin, double lr, bool scaling,
                              int growth_interval, TrainState& state,
                              bool stop = false);

  // A step of fewer FLOPs (multiply-adds count two) runs on one executable
  // even with several threads: its shares would cost more to meet than
  // they save.
  static constexpr int64_t kThreadedMinimumFlops = 4'000'000;
  // Nor does one with fewer FLOPs per parameter (a dense layer does 6 per
  // weight and row: this is a batch of about 170 rows): summing and
  // updating the parameters, once per step, would not pay for the shares
  // (the 784-128-80-40-10 MLP at batch 64, 280 FLOPs per parameter, ran at
  // 0.8x one thread on two; the Fashion CNN, 12,700, at 1.86x).
  static constexpr int64_t kThreadedMinimumFlopsPerParameter = 1000;

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
  // The graphs of a split step (replicated_step.cc): the gradients of one
  // of `shares` shares of the batch, and the update; what they train and
  // the running statistics.
  struct SplitPlan {
    ir::Graph gradients, update;
    std::vector<std::string> trained, running;
    int64_t share_rows = 0, sequence = 0;
  };
  static absl::StatusOr<SplitPlan> PlanSplit(const dag::Dag& dag,
                                             const Dataset& data,
                                             const StepConfig& config,
                                             int64_t steps, int shares);
  // The update's options: its carries (running statistics that `g`, a
  // gradients executable, computes; none without one).
  static backends::CompileOptions UpdateOptions(const SplitPlan& plan,
                                                int threads,
                                                const backends::Executable* g);
  // Binds exe_ (the update) and grad_exe_ (a share's gradients).
  absl::Status BindSplit(const SplitPlan& plan, const dag::Dag& dag,
                         const Dataset& data, const StepConfig& config);
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
  // The step split among threads (threaded_step.cc); nullopt (with an OK
  // status) when the step should run as one executable.
  // `one_executable_threads`: the threads a step not split should run
  // with (1 for one too light for its threads to pay).
  static absl::StatusOr<std::optional<StepRunner>> MakeThreaded(
      const dag::Dag& dag, const Dataset& data, const StepConfig& config,
      int threads, backends::Backend& backend, int64_t steps,
      int& one_executable_threads);
  absl::StatusOr<Result> ThreadedStep(const std::vector<int64_t>& samples,
                                      int64_t begin, double lr, bool scaling,
                                      int growth_interval, TrainState& state);
  // After a run of the update: the skipped step's scale, or the clipping
  // and scale state of an applied one (false: skipped).
  bool AfterUpdate(bool scaling, int growth_interval, TrainState& state);
  // Finds the update executable's per-step scalar inputs (exe_'s), and
  // writes them for a step at `lr` with gradient scale `scale` from
  // `state` (the clipping statistics, adam's bias corrections): what every
  // way of running a step feeds its update.
  void BindScalars(const StepConfig& config);
  void WriteScalars(double lr, float scale, const TrainState& state);
  std::unique_ptr<backends::Executable> exe_;
  std::unique_ptr<Feeder> feeder_;
  std::vector<Binding> trained_;  // with momenta
  std::vector<Binding> running_;  // batch normalization's statistics
  int lr_in_ = -1, scale_in_ = -1, mu_in_ = -1, sigma_in_ = -1, k_in_ = -1,
      first_in_ = -1, adam_bias1_in_ = -1, adam_bias2_in_ = -1;
  OptimizerParams optimizer_params_;  // adam's betas
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
  // Threads (MakeThreaded): grad_exe_ and feeder_ are share 0's, the
  // others' follow; the gradients summed slice by slice.
  std::unique_ptr<StepTeam> team_;
  std::vector<std::unique_ptr<backends::Executable>> share_exes_;
  std::vector<std::unique_ptr<Feeder>> share_feeders_;
  struct SumSlice {
    float* to;
    std::vector<const float*> from;  // by share
    size_t count;
  };
  std::vector<SumSlice> slices_;
  size_t summed_floats_ = 0;
  std::vector<absl::Status> share_status_;
  backends::Executable& Share(int t) {
    return t == 0 ? *grad_exe_ : *share_exes_[t - 1];
  }
  Feeder& ShareFeeder(int t) {
    return t == 0 ? *feeder_ : *share_feeders_[t - 1];
  }
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_STEP_RUNNER_H_
