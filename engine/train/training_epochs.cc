// TrainingLoop (training_loop.h): the epochs — each one's steps, its
// validation, early stopping, restarts of a dead network, divergence —
// and the end of the run (the advice after it, the test of the best
// parameters).
#include "engine/train/training_loop.h"

namespace webnnm::train::internal {

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

}  // namespace webnnm::train::internal
