// TrainingLoop (training_loop.h): from the requested hyperparameters to the
// first epoch — the state resolved (new, or resumed), the graphs compiled,
// scouting and the losses tuned at the start, the learning rate's range
// test and the plan within a time budget.
#include "engine/train/training_loop.h"

namespace webnnm::train::internal {

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
      RunRangeTest(*step_, state_, TrialOrder(samples), hyper.batch_size, steps,
                   range, RangeDivisor(sweep_epochs), scaling_));
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

}  // namespace webnnm::train::internal
