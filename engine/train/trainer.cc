#include "engine/train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

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

namespace webnnm::train {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double LearningRate(double max_lr, int64_t step, int64_t warmup_steps,
                    int64_t total_steps) {
  if (step < warmup_steps) {
    return max_lr * static_cast<double>(step + 1) /
           static_cast<double>(warmup_steps);
  }
  double span =
      static_cast<double>(std::max<int64_t>(1, total_steps - warmup_steps));
  double progress = static_cast<double>(step - warmup_steps) / span;
  return max_lr * 0.5 *
         (1.0 + std::cos(3.141592653589793 * std::min(1.0, progress)));
}

// The step configuration for resolved hyperparameters.
absl::StatusOr<StepConfig> MakeStepConfig(const dag::Dag& dag,
                                          const Hyperparameters& hyper,
                                          const std::vector<OutputSpec>& specs,
                                          bool uncertainty) {
  StepConfig config;
  config.batch = hyper.batch_size;
  config.outputs = specs;
  config.uncertainty_weights = uncertainty;
  // An 'auto' optimizer that no expert system resolved: rlion, the
  // specification's default.
  config.optimizer = hyper.optimizer == OptimizerKind::kAuto
                         ? OptimizerKind::kRLion
                         : hyper.optimizer;
  config.optimizer_params = DefaultOptimizerParams(config.optimizer);
  OptimizerParams& op = config.optimizer_params;
  if (hyper.lr) op.lr = *hyper.lr;
  if (hyper.weight_decay) op.weight_decay = *hyper.weight_decay;
  if (hyper.momentum_factor) op.momentum = *hyper.momentum_factor;
  if (hyper.beta1) op.beta1 = *hyper.beta1;
  if (hyper.beta2) op.beta2 = *hyper.beta2;
  if (hyper.epsilon) op.epsilon = *hyper.epsilon;
  config.lrm = FreezeMultipliers(dag, hyper.freeze);
  config.loss_scaling = hyper.gradient_scaling == GradientScaling::kOn;
  config.clip_alpha = hyper.clip_alpha;
  config.agc_lambda = hyper.agc_lambda;
  const Regularization r = hyper.regularization;
  if (r == Regularization::kL1 || r == Regularization::kL1L2) {
    config.lambda1 = hyper.lambda1;
  }
  if (r == Regularization::kL2 || r == Regularization::kL1L2) {
    config.lambda2 = hyper.lambda2;
  }
  config.clipping =
      hyper.gradient_clipping == GradientClipping::kGlobal ? Clipping::kGlobal
      : hyper.gradient_clipping == GradientClipping::kAgc  ? Clipping::kAgc
                                                           : Clipping::kOff;
  return config;
}

// At most this many restarts from the next scouted candidate per run.
constexpr int kMaxRestarts = 3;

bool CanRestart(const TrainState& state) {
  return state.restarts < kMaxRestarts &&
         state.restarts + 1 < static_cast<int>(state.scout_ranking.size());
}

// Zero optimizer state (MomentumSlots tensors of each parameter's size) for
// everything the step trains; learned uncertainty weights start at s = 0
// (weight 1/2 each).
void StartMomenta(const std::vector<std::string>& trained, TrainState& state) {
  const size_t slots = MomentumSlots(state.hyper.optimizer);
  for (const std::string& name : trained) {
    if (!state.params.count(name)) state.params[name] = {0.0f};
    state.momenta[name].assign(slots * state.params[name].size(), 0.0f);
  }
  state.optimizer_updates = 0;
}

// The seeded shuffle of the training samples for a 1-based epoch (a
// function of the seed and the epoch only, so a resumed run repeats it).
std::vector<int64_t> EpochOrder(const std::vector<int64_t>& samples,
                                uint64_t seed, int epoch) {
  std::vector<int64_t> order = samples;
  // Fisher–Yates from the last element down: element i swaps with the one
  // that word 0 of Philox block (i, epoch, 0x5eed, 0) draws; the blocks of
  // a run of elements computed at once.
  constexpr int64_t kRun = 256;
  PhiloxBlock bits[kRun];
  for (int64_t high = static_cast<int64_t>(order.size()) - 1; high > 0;
       high -= kRun) {
    const int64_t low = std::max<int64_t>(1, high - kRun + 1);
    Philox4x32Run(
        {static_cast<uint32_t>(low), static_cast<uint32_t>(epoch), 0x5eed, 0},
        seed, bits, static_cast<size_t>(high - low + 1));
    for (int64_t i = high; i >= low; --i) {
      const int64_t j = bits[i - low][0] % static_cast<uint32_t>(i + 1);
      std::swap(order[i], order[j]);
    }
  }
  return order;
}

}  // namespace

absl::StatusOr<Evaluation> Test(const dag::Dag& dag, const Dataset& dataset,
                                const Params& parameters,
                                const Hyperparameters& hyper,
                                backends::Backend& backend,
                                const std::vector<TunedLoss>& tuned) {
  if (dag.outputs.empty()) return absl::InvalidArgumentError("no outputs");
  ASSIGN_OR_RETURN(std::vector<OutputSpec> specs,
                   OutputSpecs(dag, hyper, nullptr, &dataset));
  ApplyTunedLosses(tuned, specs);
  RETURN_IF_ERROR(CheckShapes(dag, dataset, specs));
  ASSIGN_OR_RETURN(Evaluator eval,
                   Evaluator::Make(dag, dataset, specs, hyper.batch_size,
                                   hyper.threads, backend));
  eval.SetParameters(parameters);
  return eval.Run(dataset, Subset::kTest, /*metrics=*/true);
}

namespace {

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

absl::Status TrainingLoop::Start(const Hyperparameters& hyper_in,
                                 const TrainState* resume) {
  if (dag_.outputs.empty() || dag_.inputs.empty()) {
    return absl::InvalidArgumentError("the model needs an input and an output");
  }
  const Hyperparameters& requested = resume ? resume->hyper : hyper_in;
  RETURN_IF_ERROR(ValidateHyperparameters(requested));
  RETURN_IF_ERROR(ValidateHyperparameters(hyper_in));
  std::vector<Decision> loss_decisions;
  ASSIGN_OR_RETURN(specs_,
                   OutputSpecs(dag_, requested, &loss_decisions, &data_));
  RETURN_IF_ERROR(CheckShapes(dag_, data_, specs_));
  if (data_.subset(Subset::kTraining).empty()) {
    return absl::InvalidArgumentError("the training subset is empty");
  }
  // The state: resumed, or new with the expert system's resolution of the
  // 'auto' hyperparameters.
  if (resume) {
    state_ = *resume;
    state_.hyper.threads = hyper_in.threads;
    state_.hyper.replicas = hyper_in.replicas;
    ApplyTunedLosses(state_.tuned_losses, specs_);
    result_.decisions = state_.decisions;
    result_.warnings = state_.warnings;
    Decide({StrCat("resume after epoch ", state_.epoch, " of ",
                   state_.hyper.epochs),
            StrCat("a snapshot taken at step ", state_.step)});
    Continue(hyper_in);
    return absl::OkStatus();
  }
  for (const Decision& d : loss_decisions) Decide(d);
  auto_epochs_ = hyper_in.epochs == 0;
  auto_patience_ = hyper_in.patience == 0;
  Advice advice =
      Advise(dag_, Profile(dag_), hyper_in, specs_, FeatureRms(data_),
             static_cast<int64_t>(data_.subset(Subset::kTraining).size()));
  for (const Decision& d : advice.decisions) Decide(d);
  for (const std::string& w : advice.warnings) Warn(w);
  if (absl::StatusOr<std::vector<size_t>> match = MatchTargets(data_, specs_);
      match.ok()) {
    // A class a step over tokens (a language model, a tagger) always has
    // skewed classes: focal loss is not what it needs (recipes.h).
    if (!ArchitectureOf(dag_).token_classes) {
      for (std::string& w : ClassBalanceWarnings(data_, specs_, *match)) {
        Warn(std::move(w));
      }
    }
    for (std::string& w : LabelSampleWarnings(dag_, data_, specs_, *match)) {
      Warn(std::move(w));
    }
  }
  state_.hyper = advice.resolved;
  init_scale_ = advice.input_init_scale;
  return absl::OkStatus();
}

void TrainingLoop::Continue(const Hyperparameters& hyper_in) {
  Hyperparameters& h = state_.hyper;
  const int at = state_.epoch;
  if (hyper_in.lr && *hyper_in.lr != h.lr) {
    h.lr = hyper_in.lr;
    Decide({StrCat("lr ", FormatNumber(*h.lr), " from epoch ", at + 1),
            "given on resume: the schedule's maximum from here on"});
  }
  if (hyper_in.patience != 0 && hyper_in.patience != h.patience) {
    h.patience = hyper_in.patience;
    Decide({StrCat("patience ", h.patience, " from epoch ", at + 1),
            StrCat("given on resume (", state_.since_best,
                   " epochs without improvement so far)")});
  }
  if (hyper_in.time_budget && hyper_in.time_budget != h.time_budget) {
    h.time_budget = hyper_in.time_budget;
    Decide({StrCat("time budget ", FormatNumber(*h.time_budget), " s"),
            StrCat("given on resume; ", FormatNumber(state_.elapsed_seconds),
                   " s of the run are spent")});
  }
  if (hyper_in.epochs == 0 || hyper_in.epochs == h.epochs) return;
  const int was = h.epochs;
  h.epochs = hyper_in.epochs;
  if (h.epochs <= at) {
    Decide({StrCat("epochs ", h.epochs, ": no epoch is left to train"),
            StrCat("given on resume; the snapshot is after epoch ", at)});
    return;
  }
  // A warm restart (SGDR): warmup, then cosine annealing over the epochs
  // left, from the current step; the patience counts afresh.
  state_.cycle_step = state_.step;
  state_.cycle_epoch = at;
  state_.since_best = 0;
  Decide({StrCat("epochs ", h.epochs, " (was ", was,
                 "): a warm restart of the schedule after epoch ", at),
          StrCat("given on resume: from step ", state_.step,
                 " the learning rate warms up again to its maximum ",
                 FormatNumber(h.lr.value_or(0)),
                 " and anneals by a cosine over the ", h.epochs - at,
                 " epochs left; the patience counts afresh")});
}

absl::Status TrainingLoop::Compile(bool resumed, bool announce) {
  const Hyperparameters& hyper = state_.hyper;
  // Learned uncertainty weights: lossWeights 'auto' with several outputs
  // (the expert system's decision, kept by a resumed state too).
  const bool uncertainty = specs_.size() > 1 && hyper.loss_weights.empty();
  ASSIGN_OR_RETURN(config_, MakeStepConfig(dag_, hyper, specs_, uncertainty));
  if (hyper.freeze > 0 && !resumed && announce) {
    int frozen = 0;
    for (const auto& [name, m] : config_->lrm) frozen += m == 0;
    Decide({StrCat("freeze ", frozen, " of ", config_->lrm.size(),
                   " parameters; the others learn at multipliers by depth"),
            StrCat("freeze ", hyper.freeze,
                   ": multipliers sin(pi/2 (r - r0) / (1 - r0)) in 5 buckets "
                   "by each parameter's depth r")});
  }
  scaling_ = hyper.gradient_scaling == GradientScaling::kOn;
  ASSIGN_OR_RETURN(step_, StepRunner::Make(dag_, data_, *config_, hyper.threads,
                                           backend_, 0, collective_));
  bucket_steps_.clear();
  active_ = nullptr;
  bucketed_ = data_.ragged() && BucketsKeepTheModel(dag_);
  ASSIGN_OR_RETURN(eval_, Evaluator::Make(dag_, data_, specs_, hyper.batch_size,
                                          hyper.threads, backend_));
  first_layer_ = FirstLayerWeights(dag_);
  if (resumed ? !state_.scout_ranking.empty() : hyper.seeds > 1) {
    ASSIGN_OR_RETURN(scouter_, Scouter::Make(dag_, data_, specs_, *config_,
                                             hyper.threads, backend_));
  }
  const int64_t train = data_.subset(Subset::kTraining).size();
  steps_per_epoch_ = (train + hyper.batch_size - 1) / hyper.batch_size;
  return absl::OkStatus();
}

void TrainingLoop::Schedule() {
  const Hyperparameters& hyper = state_.hyper;
  const int epochs = std::max(1, hyper.epochs - state_.cycle_epoch);
  const int warmup = hyper.warmup_epochs > 0
                         ? hyper.warmup_epochs
                         : std::max(1, static_cast<int>(0.05 * epochs));
  cycle_begin_ = state_.cycle_step;
  cycle_steps_ = steps_per_epoch_ * epochs;
  warmup_steps_ = std::min<int64_t>(cycle_steps_, warmup * steps_per_epoch_);
}

absl::StatusOr<StepRunner*> TrainingLoop::StepFor(int64_t steps) {
  StepRunner* next = &*step_;
  if (steps < data_.steps()) {
    auto it = bucket_steps_.find(steps);
    if (it == bucket_steps_.end()) {
      ASSIGN_OR_RETURN(
          StepRunner made,
          StepRunner::Make(dag_, data_, *config_, state_.hyper.threads,
                           backend_, steps, collective_));
      it = bucket_steps_.emplace(steps, std::move(made)).first;
    }
    next = &it->second;
  }
  if (next != active_) {
    if (active_ != nullptr) RETURN_IF_ERROR(active_->Store(state_));
    RETURN_IF_ERROR(next->Load(state_, state_.hyper.seed));
    active_ = next;
  }
  return next;
}

std::vector<int64_t> TrainingLoop::TrialOrder(int64_t samples, int k) const {
  std::vector<int64_t> order;
  // Trial k draws the orders of epochs from 1 + 1000 k on (a training run
  // reaches them rarely, and the trials none of the same).
  for (int epoch = 1 + 1000 * k; static_cast<int64_t>(order.size()) < samples;
       ++epoch) {
    std::vector<int64_t> more =
        EpochOrder(data_.subset(Subset::kTraining), state_.hyper.seed, epoch);
    order.insert(order.end(), more.begin(), more.end());
  }
  return order;
}

absl::Status TrainingLoop::RangeTest() {
  Hyperparameters& hyper = state_.hyper;
  if (hyper.lr) return absl::OkStatus();
  const RateRange range = RangeFor(hyper.optimizer);
  const int steps = kRangeTestSteps;
  const int64_t samples = static_cast<int64_t>(steps) * hyper.batch_size;
  const double sweep_epochs =
      static_cast<double>(samples) /
      std::max<int64_t>(1, data_.subset(Subset::kTraining).size());
  RETURN_IF_ERROR(LoadStep());
  ASSIGN_OR_RETURN(
      RangeTestResult r,
      RunRangeTest(*step_, state_, TrialOrder(samples), hyper.batch_size,
                   steps, range, RangeDivisor(sweep_epochs), scaling_));
  seconds_per_step_ = r.seconds_per_step;
  hyper.lr = r.lr;
  config_->optimizer_params.lr = r.lr;
  Decide(RangeTestDecision(r, hyper.optimizer, sweep_epochs));
  if (r.at_edge) Warn(RangeTestEdgeWarning(r));
  return absl::OkStatus();
}

absl::Status TrainingLoop::PlanTime() {
  Hyperparameters& hyper = state_.hyper;
  if (!hyper.time_budget || !auto_epochs_) return absl::OkStatus();
  if (!seconds_per_step_) {
    const int steps = static_cast<int>(std::min<int64_t>(steps_per_epoch_, 20));
    RETURN_IF_ERROR(LoadStep());
    ASSIGN_OR_RETURN(
        seconds_per_step_,
        TimeSteps(*step_, state_,
                  TrialOrder(static_cast<int64_t>(steps) * hyper.batch_size),
                  hyper.batch_size, steps, *hyper.lr, scaling_));
  }
  Tick();
  if (collective_) {
    // Timings differ by replica: replica 0's plan is everyone's.
    double plan[2] = {*seconds_per_step_, state_.elapsed_seconds};
    RETURN_IF_ERROR(collective_->Broadcast(std::span<double>(plan, 2)));
    seconds_per_step_ = plan[0];
    state_.elapsed_seconds = plan[1];
  }
  // An epoch's steps, and validation at about a third of a step's cost a
  // sample.
  const double per_sample = *seconds_per_step_ / hyper.batch_size;
  const double epoch_seconds =
      *seconds_per_step_ * steps_per_epoch_ +
      per_sample / 3 * data_.subset(Subset::kValidation).size();
  const double left = *hyper.time_budget - state_.elapsed_seconds;
  const int fit =
      left <= 0
          ? 0
          : static_cast<int>(std::min(1e9, std::floor(left / epoch_seconds)));
  if (fit >= hyper.epochs) return absl::OkStatus();
  const int planned = hyper.epochs;
  hyper.epochs = std::max(1, fit);
  Decide({StrCat("epochs ", hyper.epochs, " (time budget)"),
          StrCat("the time budget of ", FormatNumber(*hyper.time_budget),
                 " s leaves ", FormatNumber(std::max(0.0, left)),
                 " s after scouting, and an epoch takes about ",
                 FormatNumber(epoch_seconds), " s: ", planned,
                 " epochs would not fit")});
  if (auto_patience_) hyper.patience = std::max(10, hyper.epochs / 4);
  return absl::OkStatus();
}

void TrainingLoop::Tick() {
  const Clock::time_point now = Clock::now();
  state_.elapsed_seconds += Seconds(now - tick_);
  tick_ = now;
}

bool TrainingLoop::OutOfTime(int epoch) {
  const std::optional<double>& budget = state_.hyper.time_budget;
  if (!budget || state_.elapsed_seconds < *budget) return false;
  Decide({StrCat("stop after epoch ", epoch),
          StrCat("the time budget of ", FormatNumber(*budget), " s is spent (",
                 FormatNumber(state_.elapsed_seconds),
                 " s): the best epoch so far is kept")});
  return true;
}

// The scouting pass's errors at the chosen start tune the losses
// (loss_tuning.h); a change recompiles the graphs. Without scouting
// (seeds 1) the losses stay as the model and the defaults say.
absl::Status TrainingLoop::TuneLossesAtTheStart() {
  if (!scouter_) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto probes, scouter_->ProbeErrors(state_.params));
  LossTuning tuning = TuneLosses(dag_, specs_, probes);
  if (tuning.tuned.empty()) return absl::OkStatus();
  for (const Decision& d : tuning.decisions) Decide(d);
  state_.tuned_losses = std::move(tuning.tuned);
  return Compile(/*resumed=*/false, /*announce=*/false);
}

absl::Status TrainingLoop::Scout() {
  const Hyperparameters& hyper = state_.hyper;
  state_.init_scale = init_scale_;
  std::optional<int> chosen;
  if (scouter_) {
    ASSIGN_OR_RETURN(
        std::vector<RankedCandidate> ranked,
        scouter_->RankCandidates(hyper.seed, hyper.seeds, first_layer_,
                                 init_scale_, collective_));
    ScoutReport report{.seeds = hyper.seeds, .gradient_ratio = 1};
    if (!ranked.empty()) {
      const Health& h = ranked.front().health;
      chosen = ranked.front().k;
      report.chosen = *chosen + 1;  // 1-based
      report.loss = h.loss;
      report.gradient_ratio = h.gradient_ratio;
      report.dead_ratio = h.dead_ratio;
    }
    for (const RankedCandidate& r : ranked) {
      state_.scout_ranking.push_back(r.k);
    }
    if (callbacks_.scout) callbacks_.scout(report);
    Decide({StrCat("start from scouting seed ", report.chosen, " of ",
                   hyper.seeds),
            StrCat("of ", hyper.seeds,
                   " random starting points tried on a first batch, the "
                   "healthiest: its gradients reach the first layer about as "
                   "strongly as the last, and few units are dead (loss ",
                   FormatNumber(report.loss), ", gradient ratio ",
                   FormatNumber(report.gradient_ratio),
                   " between the first and last layers, dead ratio ",
                   FormatNumber(report.dead_ratio),
                   "; the health score); --seeds sets how many are tried")});
  }
  state_.params =
      chosen ? CandidateParameters(dag_, hyper.seed, *chosen, first_layer_,
                                   init_scale_)
             : InitialParameters(dag_, hyper.seed, first_layer_, init_scale_);
  RETURN_IF_ERROR(TuneLossesAtTheStart());
  StartMomenta(step_->trained(), state_);
  state_.loss_scale = scaling_ ? hyper.scale : 1.0;
  return absl::OkStatus();
}

absl::StatusOr<EpochReport> TrainingLoop::RunEpoch(int epoch) {
  const Hyperparameters& hyper = state_.hyper;
  std::vector<int64_t> order =
      EpochOrder(data_.subset(Subset::kTraining), hyper.seed, epoch);
  if (bucketed_) {
    order = BucketedOrder(order, data_.lengths(), data_.steps(),
                          hyper.batch_size, hyper.seed, epoch);
  }
  const double max_lr = config_->optimizer_params.lr;
  double epoch_loss = 0, lr = 0;
  int64_t epoch_rows = 0;
  std::vector<double> correct(specs_.size(), 0), scored(specs_.size(), 0);
  Clock::time_point start = Clock::now();
  bool stop = false;  // a step callback asked to (replicas: at the next step)
  for (int64_t s = 0; s < steps_per_epoch_; ++s) {
    const int64_t begin = s * hyper.batch_size;
    lr = LearningRate(max_lr, state_.step - cycle_begin_, warmup_steps_,
                      cycle_steps_);
    StepRunner* runner = active_;
    if (bucketed_) {
      ASSIGN_OR_RETURN(runner,
                       StepFor(BatchLength(order, begin, hyper.batch_size,
                                           data_.lengths(), data_.steps())));
    }
    ASSIGN_OR_RETURN(StepRunner::Result step,
                     runner->Step(order, begin, lr, scaling_,
                                  hyper.growth_interval, state_, stop));
    if (step.stopped) {  // a replica asked to stop
      result_.interrupted = true;
      return EpochReport{};
    }
    const int64_t rows = std::min<int64_t>(
        hyper.batch_size, static_cast<int64_t>(order.size()) - begin);
    if (!std::isnan(step.loss)) {  // NaN: skipped, gradients overflowed
      epoch_loss += step.loss * rows;
      epoch_rows += rows;
      for (size_t k = 0; k < step.correct.size(); ++k) {
        correct[k] += step.correct[k];
        scored[k] += step.scored[k];
      }
    }
    if (callbacks_.step &&
        !callbacks_.step({.epoch = epoch,
                          .epochs = hyper.epochs,
                          .step = s + 1,
                          .steps = steps_per_epoch_,
                          .rows = std::min<int64_t>(
                              static_cast<int64_t>(order.size()), begin + rows),
                          .seconds = Seconds(Clock::now() - start)})) {
      stop = true;
      if (!collective_) {
        result_.interrupted = true;
        return EpochReport{};
      }
    }
  }
  // Replicas: a wish to stop after the epoch's last step is agreed here.
  if (collective_) {
    ASSIGN_OR_RETURN(bool any, collective_->Any(stop));
    if (any) {
      result_.interrupted = true;
      return EpochReport{};
    }
  }
  state_.train_seconds += Seconds(Clock::now() - start);
  state_.trained_samples += static_cast<int64_t>(order.size());
  state_.epoch = epoch;
  RETURN_IF_ERROR(active_->Store(state_));
  EpochReport report;
  report.epoch = epoch;
  report.epochs = hyper.epochs;
  report.train_loss = epoch_rows > 0 ? epoch_loss / epoch_rows : NAN;
  double accuracy = 0;
  int classified = 0;
  for (size_t k = 0; k < specs_.size(); ++k) {
    if (!IsClassification(specs_[k].loss) || scored[k] <= 0) continue;
    accuracy += correct[k] / scored[k];
    ++classified;
  }
  if (classified > 0) report.train_accuracy = accuracy / classified;
  report.lr = lr;
  report.samples_per_second =
      state_.train_seconds > 0 ? state_.trained_samples / state_.train_seconds
                               : 0;
  state_.final_train_loss = report.train_loss;
  return report;
}

bool TrainingLoop::EarlyStop(double score, const EpochReport& report) {
  if (score < state_.best_score || state_.best.empty()) {
    state_.best_score = score;
    state_.best_epoch = report.epoch;
    state_.best_validation_loss = report.validation_loss;
    state_.best = state_.params;
    state_.since_best = 0;
    return false;
  }
  if (++state_.since_best < state_.hyper.patience) return false;
  Decide({StrCat("stop after epoch ", report.epoch),
          StrCat(state_.hyper.patience,
                 " epochs without improvement (patience)")});
  return true;
}

absl::Status TrainingLoop::CheckAlive(int epoch) {
  ASSIGN_OR_RETURN(
      bool alive,
      scouter_->InputsMatter(state_.params, first_layer_, state_.loss_scale));
  if (alive) return absl::OkStatus();
  const std::string dead = StrCat(
      "no first-layer weight got a gradient from the first ",
      scouter_->LivenessSamples(), " training samples after epoch ", epoch,
      ": the network's output no longer depends on its input (its "
      "units are dead)");
  if (!CanRestart(state_)) {
    warned_dead_ = true;
    Warn(StrCat(dead,
                ", and no scouted start is left to restart from: try "
                "standardize, a lower lr or more seeds"));
    return absl::OkStatus();
  }
  const int k = state_.scout_ranking[++state_.restarts];
  state_.params = CandidateParameters(dag_, state_.hyper.seed, k, first_layer_,
                                      state_.init_scale);
  StartMomenta(step_->trained(), state_);
  state_.clip_mu = state_.clip_sigma = 0;
  state_.clip_first = true;
  state_.since_best = 0;
  RETURN_IF_ERROR(LoadStep());
  Decide({StrCat("restart from scouting seed ", k + 1, " (restart ",
                 state_.restarts, " of at most ", kMaxRestarts, ")"),
          StrCat(dead,
                 ", so it cannot learn; the next best start of scouting "
                 "takes over")});
  return absl::OkStatus();
}

absl::StatusOr<bool> TrainingLoop::Diverged(const EpochReport& report,
                                            const TrainState& good) {
  // A step skipped by dynamic scaling is no divergence: its loss counts
  // for nothing, and an epoch of skipped steps is one only once the scale
  // cannot fall further.
  const bool validation =
      report.validation_loss && !std::isfinite(*report.validation_loss);
  const bool training =
      std::isinf(report.train_loss) ||
      (std::isnan(report.train_loss) && (!scaling_ || state_.loss_scale <= 1));
  if (!validation && !training) return false;
  const double lr = config_->optimizer_params.lr;
  const std::string why = StrCat(
      "the ", validation ? "validation" : "training", " loss of epoch ",
      report.epoch, " is ",
      validation ? *report.validation_loss : report.train_loss, " at lr ", lr);
  if (state_.divergences >= kMaxDivergences) {
    return absl::AbortedError(
        StrCat("training diverged: ", why, ", after ", state_.divergences,
               " restarts from the last good epoch with a tenth of the "
               "learning rate; try a lower lr, gradientClipping global or "
               "standardized data"));
  }
  const int divergences = state_.divergences + 1;
  state_ = good;  // the parameters, momenta, step and scale of then
  state_.divergences = divergences;
  state_.hyper.lr = lr / 10;
  config_->optimizer_params.lr = lr / 10;
  RETURN_IF_ERROR(LoadStep());
  Decide({StrCat("lr ", lr / 10, " from epoch ", good.epoch + 1),
          StrCat(why, ": the run diverged, so it goes back to epoch ",
                 good.epoch, " with a tenth of the learning rate (retry ",
                 divergences, " of at most ", kMaxDivergences, ")")});
  return true;
}

absl::Status TrainingLoop::Epochs() {
  RETURN_IF_ERROR(LoadStep());
  const Hyperparameters& hyper = state_.hyper;
  bool stopped = state_.since_best >= hyper.patience;
  TrainState good = state_;  // the last good epoch's, to go back to
  while (!stopped && state_.epoch < hyper.epochs) {
    const int epoch = state_.epoch + 1;
    ASSIGN_OR_RETURN(EpochReport report, RunEpoch(epoch));
    if (result_.interrupted) {
      // The partial epoch's steps are dropped: back to the last whole one.
      state_ = good;
      break;
    }
    double score = report.train_loss;
    if (!data_.subset(Subset::kValidation).empty()) {
      eval_->SetParameters(state_.params);
      ASSIGN_OR_RETURN(Evaluation v,
                       eval_->Run(data_, Subset::kValidation,
                                  /*metrics=*/false, collective_));
      report.validation_loss = v.loss;
      report.validation_accuracy = v.accuracy;
      score = v.loss;
    }
    ASSIGN_OR_RETURN(bool diverged, Diverged(report, good));
    if (diverged) continue;
    history_.push_back(report);
    if (callbacks_.epoch) callbacks_.epoch(report);
    stopped = EarlyStop(score, report);
    Tick();
    if (!stopped) stopped = OutOfTime(epoch);
    ASSIGN_OR_RETURN(stopped, Agree(stopped));  // the time budget differs
    // A dead network (its output no longer depends on its input) starts
    // over from the next scouted candidate, keeping the schedule's place.
    if (!stopped && scouter_ && !warned_dead_ && epoch < hyper.epochs) {
      RETURN_IF_ERROR(CheckAlive(epoch));
    }
    state_.decisions = result_.decisions;
    state_.warnings = result_.warnings;
    const bool go = !callbacks_.checkpoint || callbacks_.checkpoint(state_);
    ASSIGN_OR_RETURN(const bool halt, Agree(!go));
    if (halt) break;
    good = state_;
  }
  return absl::OkStatus();
}

absl::StatusOr<TrainResult> TrainingLoop::Finish() {
  if (state_.best.empty()) state_.best = state_.params;
  if (std::optional<std::string> w =
          AdviseMoreEpochs(state_.best_epoch, state_.epoch, state_.hyper.epochs,
                           !data_.subset(Subset::kValidation).empty())) {
    Warn(*std::move(w));
  }
  if (std::optional<std::string> w = AdviseOverfitting(history_)) {
    Warn(*std::move(w));
  }
  state_.decisions = result_.decisions;
  state_.warnings = result_.warnings;
  result_.epochs = state_.epoch;
  result_.best_epoch = state_.best_epoch;
  result_.validation_loss = state_.best_validation_loss;
  result_.final_train_loss = state_.final_train_loss;
  result_.train_samples_per_second =
      state_.train_seconds > 0 ? state_.trained_samples / state_.train_seconds
                               : 0;
  if (!data_.subset(Subset::kTest).empty()) {
    eval_->SetParameters(state_.best);
    ASSIGN_OR_RETURN(result_.test, eval_->Run(data_, Subset::kTest,
                                              /*metrics=*/true, collective_));
  }
  result_.state = std::move(state_);
  return std::move(result_);
}

}  // namespace

absl::StatusOr<TrainResult> Train(const dag::Dag& dag, const Dataset& data,
                                  const Hyperparameters& hyper,
                                  backends::Backend& backend,
                                  const TrainCallbacks& callbacks,
                                  const TrainState* resume,
                                  Collective* collective) {
  TrainingLoop loop(dag, data, backend, callbacks, collective);
  RETURN_IF_ERROR(loop.Start(hyper, resume));
  RETURN_IF_ERROR(loop.Compile(resume != nullptr));
  if (resume == nullptr) {
    RETURN_IF_ERROR(loop.Scout());
    RETURN_IF_ERROR(loop.RangeTest());
    RETURN_IF_ERROR(loop.PlanTime());
  }
  loop.Schedule();
  RETURN_IF_ERROR(loop.Epochs());
  return loop.Finish();
}

}  // namespace webnnm::train
