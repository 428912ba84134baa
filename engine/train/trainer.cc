#include "engine/train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "engine/base/philox.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/expert.h"
#include "engine/train/feeder.h"
#include "engine/train/freeze.h"
#include "engine/train/init.h"
#include "engine/train/scout.h"
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
  std::optional<OptimizerKind> kind = ParseOptimizer(hyper.optimizer);
  if (!kind) {
    return absl::InvalidArgumentError(
        StrCat("unknown optimizer '", hyper.optimizer,
               "'; expected lion, rlion, nesterov or sgdm"));
  }
  StepConfig config;
  config.batch = hyper.batch_size;
  config.outputs = specs;
  config.uncertainty_weights = uncertainty;
  config.optimizer = *kind;
  config.optimizer_params = DefaultOptimizerParams(*kind);
  OptimizerParams& op = config.optimizer_params;
  if (hyper.lr) op.lr = *hyper.lr;
  if (hyper.weight_decay) op.weight_decay = *hyper.weight_decay;
  if (hyper.momentum_factor) op.momentum = *hyper.momentum_factor;
  if (hyper.beta1) op.beta1 = *hyper.beta1;
  if (hyper.beta2) op.beta2 = *hyper.beta2;
  config.lrm = FreezeMultipliers(dag, hyper.freeze);
  config.clip_alpha = hyper.clip_alpha;
  config.agc_lambda = hyper.agc_lambda;
  if (hyper.regularization == "L1" || hyper.regularization == "L1+L2") {
    config.lambda1 = hyper.lambda1;
  }
  if (hyper.regularization == "L2" || hyper.regularization == "L1+L2") {
    config.lambda2 = hyper.lambda2;
  }
  config.clipping = hyper.gradient_clipping == "global" ? Clipping::kGlobal
                    : hyper.gradient_clipping == "agc"  ? Clipping::kAgc
                                                        : Clipping::kOff;
  return config;
}

// At most this many restarts from the next scouted candidate per run.
constexpr int kMaxRestarts = 3;

bool CanRestart(const TrainState& state) {
  return state.restarts < kMaxRestarts &&
         state.restarts + 1 < static_cast<int>(state.scout_ranking.size());
}

// Zero momenta for everything the step trains; learned uncertainty weights
// start at s = 0 (weight 1/2 each).
void StartMomenta(const std::vector<std::string>& trained, TrainState& state) {
  for (const std::string& name : trained) {
    if (!state.params.count(name)) state.params[name] = {0.0f};
    state.momenta[name].assign(state.params[name].size(), 0.0f);
  }
}

// The seeded shuffle of the training samples for a 1-based epoch (a
// function of the seed and the epoch only, so a resumed run repeats it).
std::vector<int64_t> EpochOrder(const std::vector<int64_t>& samples,
                                uint64_t seed, int epoch) {
  std::vector<int64_t> order = samples;
  for (int64_t i = static_cast<int64_t>(order.size()) - 1; i > 0; --i) {
    PhiloxBlock bits = Philox4x32(
        {static_cast<uint32_t>(i), static_cast<uint32_t>(epoch), 0x5eed, 0},
        seed);
    int64_t j = static_cast<int64_t>(bits[0] % static_cast<uint32_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace

absl::StatusOr<OutputSpec> ChooseLoss(const dag::Dag& dag,
                                      const std::string& output,
                                      const std::string& declared,
                                      Decision* decision) {
  OutputSpec spec;
  spec.name = output;
  if (!declared.empty()) {
    std::optional<LossKind> loss = ParseLoss(declared);
    if (!loss) {
      return absl::InvalidArgumentError(
          StrCat("unknown loss '", declared, "'"));
    }
    spec.loss = *loss;
    if (decision) {
      *decision = {
          StrCat("loss ", LossAbbreviation(*loss), " for '", output, "'"),
          "declared by the model"};
    }
    return spec;
  }
  switch (ActivationOf(dag, output)) {
    case OutputActivation::kSoftmax:
    case OutputActivation::kLogSoftmax:
      spec.loss = LossKind::kCategoricalCrossEntropy;
      break;
    case OutputActivation::kSigmoid:
      spec.loss = LossKind::kBinaryCrossEntropy;
      break;
    default:
      spec.loss = LossKind::kMeanSquaredError;
      break;
  }
  if (decision) {
    *decision = {
        StrCat("loss ", LossAbbreviation(spec.loss), " for '", output, "'"),
        spec.loss == LossKind::kMeanSquaredError
            ? "the output has no softmax or sigmoid activation: regression"
            : StrCat("the output ends with ",
                     spec.loss == LossKind::kBinaryCrossEntropy ? "sigmoid"
                                                                : "softmax",
                     ", so it predicts probabilities")};
  }
  return spec;
}

absl::StatusOr<std::vector<OutputSpec>> OutputSpecs(
    const dag::Dag& dag, const Hyperparameters& hyper,
    std::vector<Decision>* decisions) {
  std::vector<double> weights;
  if (hyper.loss_weights != "auto") {
    std::stringstream in(hyper.loss_weights);
    std::string item;
    while (std::getline(in, item, ',')) {
      char* end = nullptr;
      double w = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0' || !(w >= 0) || !std::isfinite(w)) {
        return absl::InvalidArgumentError(
            StrCat("lossWeights takes 'auto' or one non-negative weight per "
                   "output, comma-separated; not '",
                   hyper.loss_weights, "'"));
      }
      weights.push_back(w);
    }
    if (weights.size() != dag.outputs.size()) {
      return absl::InvalidArgumentError(StrCat(
          "lossWeights '", hyper.loss_weights, "' gives ", weights.size(),
          " weights for ", dag.outputs.size(), " outputs"));
    }
  }
  std::vector<OutputSpec> specs;
  for (size_t k = 0; k < dag.outputs.size(); ++k) {
    const dag::Endpoint& o = dag.outputs[k];
    Decision decision;
    ASSIGN_OR_RETURN(OutputSpec spec,
                     ChooseLoss(dag, o.name, o.loss, &decision));
    spec.params.alpha = o.alpha.value_or(spec.params.alpha);
    spec.params.gamma = o.gamma.value_or(spec.params.gamma);
    spec.params.delta = o.delta.value_or(spec.params.delta);
    if (!weights.empty()) spec.weight = weights[k];
    if (decisions) decisions->push_back(decision);
    specs.push_back(spec);
  }
  return specs;
}

absl::StatusOr<Evaluation> Test(const dag::Dag& dag, const Dataset& dataset,
                                const Params& parameters,
                                const Hyperparameters& hyper,
                                backends::Backend& backend) {
  if (dag.outputs.empty()) return absl::InvalidArgumentError("no outputs");
  ASSIGN_OR_RETURN(std::vector<OutputSpec> specs,
                   OutputSpecs(dag, hyper, nullptr));
  RETURN_IF_ERROR(CheckShapes(dag, dataset, specs));
  ASSIGN_OR_RETURN(Evaluator eval,
                   Evaluator::Make(dag, dataset, specs, hyper.batch_size,
                                   hyper.threads, backend));
  eval.SetParameters(parameters);
  return eval.Run(dataset, Subset::kTest);
}

absl::StatusOr<TrainResult> Train(const dag::Dag& dag, const Dataset& data,
                                  const Hyperparameters& hyper_in,
                                  backends::Backend& backend,
                                  const TrainCallbacks& callbacks,
                                  const TrainState* resume) {
  TrainResult result;
  auto decide = [&](Decision d) {
    if (callbacks.decision) callbacks.decision(d);
    result.decisions.push_back(std::move(d));
  };
  if (dag.outputs.empty() || dag.inputs.empty()) {
    return absl::InvalidArgumentError("the model needs an input and an output");
  }
  const Hyperparameters& requested = resume ? resume->hyper : hyper_in;
  if (requested.batch_size < 1 || requested.epochs < 1 ||
      hyper_in.threads < 1) {
    return absl::InvalidArgumentError(
        "batchSize, epochs and threads must be positive");
  }
  std::vector<Decision> loss_decisions;
  ASSIGN_OR_RETURN(std::vector<OutputSpec> specs,
                   OutputSpecs(dag, requested, &loss_decisions));
  RETURN_IF_ERROR(CheckShapes(dag, data, specs));
  if (data.subset(Subset::kTraining).empty()) {
    return absl::InvalidArgumentError("the training subset is empty");
  }

  // The state: resumed, or new with the expert system's resolution of the
  // 'auto' hyperparameters.
  TrainState state;
  double init_scale = 1.0;
  if (resume) {
    state = *resume;
    state.hyper.threads = hyper_in.threads;
    result.decisions = state.decisions;
    result.warnings = state.warnings;
    decide(
        {StrCat("resume after epoch ", state.epoch, " of ", state.hyper.epochs),
         StrCat("a snapshot taken at step ", state.step)});
  } else {
    for (const Decision& d : loss_decisions) decide(d);
    DagProfile profile = Profile(dag);
    Advice advice =
        Advise(dag, profile, hyper_in, specs[0], FeatureRms(data),
               static_cast<int64_t>(data.subset(Subset::kTraining).size()));
    for (const Decision& d : advice.decisions) decide(d);
    for (const std::string& w : advice.warnings) {
      if (callbacks.warning) callbacks.warning(w);
      result.warnings.push_back(w);
    }
    state.hyper = advice.resolved;
    init_scale = advice.input_init_scale;
  }
  // Learned uncertainty weights: lossWeights 'auto' with several outputs
  // (the expert system's decision, kept by a resumed state too).
  const bool uncertainty =
      specs.size() > 1 && state.hyper.loss_weights == "auto";
  const Hyperparameters& hyper = state.hyper;
  ASSIGN_OR_RETURN(StepConfig config,
                   MakeStepConfig(dag, hyper, specs, uncertainty));
  if (hyper.freeze > 0 && !resume) {
    int frozen = 0;
    for (const auto& [name, m] : config.lrm) frozen += m == 0;
    decide({StrCat("freeze ", frozen, " of ", config.lrm.size(),
                   " parameters; the others learn at multipliers by depth"),
            StrCat("freeze ", hyper.freeze,
                   ": multipliers sin(pi/2 (r - r0) / (1 - r0)) in 5 buckets "
                   "by each parameter's depth r")});
  }
  const bool scaling = hyper.gradient_scaling == "on";

  ASSIGN_OR_RETURN(StepRunner step,
                   StepRunner::Make(dag, data, config, hyper.threads, backend));
  ASSIGN_OR_RETURN(Evaluator eval,
                   Evaluator::Make(dag, data, specs, hyper.batch_size,
                                   hyper.threads, backend));
  const std::set<std::string> first_layer = FirstLayerWeights(dag);
  std::optional<Scouter> scouter;
  if (resume ? !state.scout_ranking.empty() : hyper.seeds > 1) {
    ASSIGN_OR_RETURN(Scouter made, Scouter::Make(dag, data, specs, config,
                                                 hyper.threads, backend));
    scouter.emplace(std::move(made));
  }
  if (!resume) {
    state.init_scale = init_scale;
    std::optional<int> chosen;
    if (scouter) {
      ASSIGN_OR_RETURN(std::vector<RankedCandidate> ranked,
                       scouter->RankCandidates(hyper.seed, hyper.seeds,
                                               first_layer, init_scale));
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
        state.scout_ranking.push_back(r.k);
      }
      if (callbacks.scout) callbacks.scout(report);
      decide({StrCat("start from scouting seed ", report.chosen, " of ",
                     hyper.seeds),
              StrCat("the best health score on a first batch: loss ",
                     report.loss, ", gradient ratio ", report.gradient_ratio,
                     ", dead ratio ", report.dead_ratio)});
    }
    state.params =
        chosen ? CandidateParameters(dag, hyper.seed, *chosen, first_layer,
                                     init_scale)
               : InitialParameters(dag, hyper.seed, first_layer, init_scale);
    StartMomenta(step.trained(), state);
    state.loss_scale = scaling ? hyper.scale : 1.0;
  }
  RETURN_IF_ERROR(step.Load(state, hyper.seed));

  // The loop.
  const std::vector<int64_t>& train = data.subset(Subset::kTraining);
  const int64_t steps_per_epoch =
      (static_cast<int64_t>(train.size()) + hyper.batch_size - 1) /
      hyper.batch_size;
  const int warmup = hyper.warmup_epochs > 0
                         ? hyper.warmup_epochs
                         : std::max(1, static_cast<int>(0.05 * hyper.epochs));
  const int64_t total_steps = steps_per_epoch * hyper.epochs;
  const int64_t warmup_steps =
      std::min<int64_t>(total_steps, warmup * steps_per_epoch);
  const double max_lr = config.optimizer_params.lr;
  bool stopped = state.since_best >= hyper.patience;
  bool warned_dead = false;
  while (!stopped && state.epoch < hyper.epochs) {
    const int epoch = state.epoch + 1;
    const std::vector<int64_t> order = EpochOrder(train, hyper.seed, epoch);
    double epoch_loss = 0, lr = 0;
    int64_t epoch_rows = 0;
    Clock::time_point start = Clock::now();
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      const int64_t begin = s * hyper.batch_size;
      lr = LearningRate(max_lr, state.step, warmup_steps, total_steps);
      ASSIGN_OR_RETURN(double loss, step.Step(order, begin, lr, scaling,
                                              hyper.growth_interval, state));
      if (std::isnan(loss)) continue;  // skipped: its gradients overflowed
      const int64_t rows = std::min<int64_t>(
          hyper.batch_size, static_cast<int64_t>(order.size()) - begin);
      epoch_loss += loss * rows;
      epoch_rows += rows;
    }
    state.train_seconds += Seconds(Clock::now() - start);
    state.trained_samples += static_cast<int64_t>(order.size());
    state.epoch = epoch;
    RETURN_IF_ERROR(step.Store(state));
    EpochReport report;
    report.epoch = epoch;
    report.epochs = hyper.epochs;
    report.train_loss = epoch_rows > 0 ? epoch_loss / epoch_rows : NAN;
    report.lr = lr;
    report.samples_per_second =
        state.train_seconds > 0 ? state.trained_samples / state.train_seconds
                                : 0;
    state.final_train_loss = report.train_loss;
    double score = report.train_loss;
    if (!data.subset(Subset::kValidation).empty()) {
      eval.SetParameters(state.params);
      ASSIGN_OR_RETURN(Evaluation v, eval.Run(data, Subset::kValidation));
      report.validation_loss = v.loss;
      score = v.loss;
    }
    if (callbacks.epoch) callbacks.epoch(report);
    if (score < state.best_score || state.best.empty()) {
      state.best_score = score;
      state.best_epoch = epoch;
      state.best_validation_loss = report.validation_loss;
      state.best = state.params;
      state.since_best = 0;
    } else if (++state.since_best >= hyper.patience) {
      decide(
          {StrCat("stop after epoch ", epoch),
           StrCat(hyper.patience, " epochs without improvement (patience)")});
      stopped = true;
    }
    // A dead network (its output no longer depends on its input) starts
    // over from the next scouted candidate, keeping the schedule's place.
    if (!stopped && scouter && !warned_dead && epoch < hyper.epochs) {
      ASSIGN_OR_RETURN(
          bool alive,
          scouter->InputsMatter(state.params, first_layer, state.loss_scale));
      const std::string dead =
          alive ? ""
                : StrCat("no first-layer weight got a gradient from the first ",
                         scouter->LivenessSamples(),
                         " training samples after epoch ", epoch,
                         ": the network's output no longer depends on its "
                         "input (its units are dead)");
      if (!alive && CanRestart(state)) {
        const int k = state.scout_ranking[++state.restarts];
        state.params = CandidateParameters(dag, hyper.seed, k, first_layer,
                                           state.init_scale);
        StartMomenta(step.trained(), state);
        state.clip_mu = state.clip_sigma = 0;
        state.clip_first = true;
        state.since_best = 0;
        RETURN_IF_ERROR(step.Load(state, hyper.seed));
        decide({StrCat("restart from scouting seed ", k + 1, " (restart ",
                       state.restarts, " of at most ", kMaxRestarts, ")"),
                StrCat(dead,
                       ", so it cannot learn; the next best start of "
                       "scouting takes over")});
      } else if (!alive) {
        warned_dead = true;
        std::string w = StrCat(dead,
                               ", and no scouted start is left to "
                               "restart from: try --standardize, a "
                               "lower --lr or more --seeds");
        if (callbacks.warning) callbacks.warning(w);
        result.warnings.push_back(std::move(w));
      }
    }
    state.decisions = result.decisions;
    state.warnings = result.warnings;
    if (callbacks.checkpoint && !callbacks.checkpoint(state)) break;
  }
  if (state.best.empty()) state.best = state.params;
  if (std::optional<std::string> w =
          AdviseMoreEpochs(state.best_epoch, state.epoch, hyper.epochs,
                           !data.subset(Subset::kValidation).empty())) {
    if (callbacks.warning) callbacks.warning(*w);
    result.warnings.push_back(*std::move(w));
  }
  state.decisions = result.decisions;
  state.warnings = result.warnings;
  result.epochs = state.epoch;
  result.best_epoch = state.best_epoch;
  result.validation_loss = state.best_validation_loss;
  result.final_train_loss = state.final_train_loss;
  result.train_samples_per_second =
      state.train_seconds > 0 ? state.trained_samples / state.train_seconds : 0;
  if (!data.subset(Subset::kTest).empty()) {
    eval.SetParameters(state.best);
    ASSIGN_OR_RETURN(result.test, eval.Run(data, Subset::kTest));
  }
  result.state = std::move(state);
  return result;
}

}  // namespace webnnm::train
