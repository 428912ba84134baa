// The training loop behind Train() (trainer.h), internal to engine/train:
// the class whose methods live in training_loop.cc (the state resolved, the
// graphs compiled, scouting, the learning rate, the time budget) and
// training_epochs.cc (the epochs, validation, early stopping, restarts,
// divergence and the final test), and the helpers they share (trainer.cc).
// One TrainingLoop serves one Train() call, on one thread.
#ifndef WEBNNM_ENGINE_TRAIN_TRAINING_LOOP_H_
#define WEBNNM_ENGINE_TRAIN_TRAINING_LOOP_H_

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/philox.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/expert/expert.h"
#include "engine/expert/label_advice.h"
#include "engine/expert/loss_tuning.h"
#include "engine/expert/lr_finder.h"
#include "engine/expert/recipes.h"
#include "engine/expert/scout.h"
#include "engine/train/buckets.h"
#include "engine/train/evaluator.h"
#include "engine/train/feeder.h"
#include "engine/train/freeze.h"
#include "engine/train/init.h"
#include "engine/train/step_runner.h"
#include "engine/train/trainer.h"

namespace webnnm::train::internal {

// The loop's helpers (trainer.cc).
using Clock = std::chrono::steady_clock;
inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
// The schedule's rate at `step`: linear warmup, then cosine annealing to 0.
double LearningRate(double max_lr, int64_t step, int64_t warmup_steps,
                    int64_t total_steps);
// The step configuration for resolved hyperparameters.
absl::StatusOr<StepConfig> MakeStepConfig(const dag::Dag& dag,
                                          const Hyperparameters& hyper,
                                          const std::vector<OutputSpec>& specs,
                                          bool uncertainty);
// At most this many restarts from the next scouted candidate per run.
inline constexpr int kMaxRestarts = 3;
bool CanRestart(const TrainState& state);
// Zero optimizer state (MomentumSlots tensors of each parameter's size) for
// everything the step trains; learned uncertainty weights start at s = 0
// (weight 1/2 each).
void StartMomenta(const std::vector<std::string>& trained, TrainState& state);
// The seeded shuffle of the training samples for a 1-based epoch (a
// function of the seed and the epoch only, so a resumed run repeats it).
std::vector<int64_t> EpochOrder(const std::vector<int64_t>& samples,
                                uint64_t seed, int epoch);

// One run of the training loop: the state resolved (new, or resumed), the
// compiled graphs, scouting, the epochs with validation, early stopping and
// restarts of a dead network, and the final test of the best parameters.
class TrainingLoop {
 public:
  TrainingLoop(const dag::Dag& dag, const Dataset& data,
               backends::Backend& backend, const TrainCallbacks& callbacks,
               Collective* collective)
      : dag_(dag),
        data_(data),
        backend_(backend),
        callbacks_(callbacks),
        collective_(collective) {}

  absl::Status Start(const Hyperparameters& hyper_in, const TrainState* resume);
  // A resumed run takes `hyper_in`'s epochs, patience (unless auto), lr and
  // timeBudget (when set) where they differ from its own, each a decision;
  // other epochs start a new cycle of the schedule from the current step.
  void Continue(const Hyperparameters& hyper_in);
  // `announce`: report the freeze decision (not on a recompile).
  absl::Status Compile(bool resumed, bool announce = true);
  absl::Status Scout();
  absl::Status TuneLossesAtTheStart();
  // A new run's learning rate when lr is auto: a range test from the
  // scouted start (a decision with its numbers).
  absl::Status RangeTest();
  // A new run's automatic length within timeBudget: fewer epochs when the
  // planned ones would not fit (a decision).
  absl::Status PlanTime();
  // The learning-rate schedule of the current cycle.
  void Schedule();
  absl::Status Epochs();
  absl::StatusOr<TrainResult> Finish();

 private:
  void Decide(Decision d) {
    if (callbacks_.decision) callbacks_.decision(d);
    result_.decisions.push_back(std::move(d));
  }
  void Warn(std::string w) {
    if (callbacks_.warning) callbacks_.warning(w);
    result_.warnings.push_back(std::move(w));
  }
  // One epoch's steps; its report without the validation loss.
  absl::StatusOr<EpochReport> RunEpoch(int epoch);
  // Keeps the best parameters; true when patience ran out.
  bool EarlyStop(double score, const EpochReport& report);
  // True when timeBudget is spent (a decision).
  bool OutOfTime(int epoch);
  // Adds the wall time since the last call to state_.elapsed_seconds.
  void Tick();
  // Loads state_ into step_, which then holds the current parameters.
  absl::Status LoadStep() {
    RETURN_IF_ERROR(step_->Load(state_, state_.hyper.seed));
    active_ = &*step_;
    return absl::OkStatus();
  }
  // The step for batches padded to `steps` (ragged sequences), holding
  // the current parameters: moved over from the active step when another.
  absl::StatusOr<StepRunner*> StepFor(int64_t steps);
  // Epoch orders from epoch 1 (or, for the k-th of several trials, a
  // later one) on, concatenated: at least `samples` long.
  std::vector<int64_t> TrialOrder(int64_t samples, int k = 0) const;
  // Restarts a dead network from the next scouted candidate (or warns once
  // when none is left).
  absl::Status CheckAlive(int epoch);
  // Whether the epoch diverged (a non-finite loss): then the state is back
  // at `good` with a tenth of the learning rate (a decision), or, after
  // kMaxDivergences such retries, the run fails (Aborted, with the reason).
  absl::StatusOr<bool> Diverged(const EpochReport& report,
                                const TrainState& good);

  const dag::Dag& dag_;
  const Dataset& data_;
  backends::Backend& backend_;
  const TrainCallbacks& callbacks_;
  Collective* collective_;  // data parallelism; null: one process
  // Whether any replica says `yes` (without replicas: `yes`).
  absl::StatusOr<bool> Agree(bool yes) {
    if (!collective_) return yes;
    return collective_->Any(yes);
  }
  TrainResult result_;
  TrainState state_;
  std::vector<OutputSpec> specs_;
  double init_scale_ = 1.0;
  std::optional<StepConfig> config_;
  std::optional<StepRunner> step_;  // batches padded to the dataset's steps
  // Ragged sequences: the steps of the shorter length buckets (buckets.h),
  // compiled when first needed, and the step that holds the current
  // parameters (step_ or one of them).
  std::map<int64_t, StepRunner> bucket_steps_;
  StepRunner* active_ = nullptr;
  bool bucketed_ = false;  // ragged, and BucketsKeepTheModel
  std::optional<Evaluator> eval_;
  std::optional<Scouter> scouter_;
  std::set<std::string> first_layer_;
  bool scaling_ = false;
  bool warned_dead_ = false;
  // What the user left to the expert system (a new run).
  bool auto_epochs_ = false, auto_patience_ = false;
  // The epochs run by this call (not diverged), in order.
  std::vector<EpochReport> history_;
  // Seconds a step takes, when measured before training (a range test).
  std::optional<double> seconds_per_step_;
  Clock::time_point tick_ = Clock::now();
  // The schedule: warmup, then cosine annealing, over the steps of the
  // current cycle [cycle_begin_, cycle_begin_ + cycle_steps_).
  int64_t steps_per_epoch_ = 0, cycle_begin_ = 0, cycle_steps_ = 0,
          warmup_steps_ = 0;
};

}  // namespace webnnm::train::internal

#endif  // WEBNNM_ENGINE_TRAIN_TRAINING_LOOP_H_
