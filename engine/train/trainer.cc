#include "engine/train/trainer.h"

#include "engine/train/training_loop.h"

namespace webnnm::train {
namespace internal {

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

}  // namespace internal

using internal::TrainingLoop;

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
  ASSIGN_OR_RETURN(TrainResult result, loop.Finish());
  // The caller closes the collective when this returns: not before every
  // replica has read the last sum (collective.h, Done). Done's error comes
  // after every result is in, so it fails nothing.
  if (collective) (void)collective->Done();
  return result;
}

}  // namespace webnnm::train
