#include "engine/expert/expert.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/expert/format.h"
#include "engine/expert/recipes.h"
#include "engine/ir/op_def.h"
#include "engine/train/feeder.h"
#include "engine/train/optimizer.h"

namespace webnnm::train {
namespace {

// Below this many training samples a set counts as small for the
// regularization heuristic.
constexpr int64_t kFewSamples = 10000;

// Models this deep or shallower (heavy layers on the longest path: one
// hidden layer and the output) train without gradient clipping.
constexpr int kShallowDepth = 2;

// The automatic batch size: about this many steps an epoch, a power of
// two from kSmallestBatch to the largest for the task (a large set's
// classification trains better in ten epochs of twice the steps: measured
// on the Fashion-MNIST models, docs/training.md).
constexpr int kSmallestBatch = 16;
constexpr int kLargestClassificationBatch = 32;
constexpr int kLargestRegressionBatch = 64;
constexpr int kClassificationSteps = 32;
constexpr int kRegressionSteps = 4;
// The automatic epochs: kEpochsAtReference at kReferenceSamples training
// samples, times (kReferenceSamples / n)^kEpochsExponent (measured on the
// shipped sets: docs/training.md), within [kFewestEpochs, kMostEpochs].
constexpr double kEpochsAtReference = 10;
constexpr double kReferenceSamples = 45000;
constexpr double kEpochsExponent = 0.6;
constexpr int kFewestEpochs = 10;
constexpr int kMostEpochs = 1000;

// The least distance a sign-based optimizer's schedule should let a
// parameter travel: trained weights are commonly of order 0.1 to 1.
constexpr double kLeastTravel = 1.0;

}  // namespace

namespace {

// What each heuristic below reads, and where it writes.
struct Context {
  const dag::Dag& dag;
  const DagProfile& profile;
  const std::vector<OutputSpec>& specs;  // at least one
  std::optional<double> feature_rms;
  std::optional<int64_t> training_samples;
  Advice& advice;
  Hyperparameters& h() { return advice.resolved; }
  void Decide(std::string what, std::string why) {
    advice.decisions.push_back({std::move(what), std::move(why)});
  }
  void Warn(std::string warning) {
    advice.warnings.push_back(std::move(warning));
  }
  bool MostlyFloat16() const {
    return profile.heavy > 0 && 2 * profile.heavy_float16 > profile.heavy;
  }
};

// Each output's loss against its activation.
void AdviseLossMismatch(Context& c) {
  for (const OutputSpec& spec : c.specs) {
    const OutputActivation activation = ActivationOf(c.dag, spec.name);
    const LossKind loss = spec.loss;
    // Several outputs: each warning names its own.
    const std::string of =
        c.specs.size() > 1 ? StrCat(" of '", spec.name, "'") : "";
    const bool probabilities = activation == OutputActivation::kSoftmax ||
                               activation == OutputActivation::kSigmoid;
    // A sigmoid under a regression loss is a bounded regression (the
    // targets' sample is checked against (0, 1): label_advice.h); a
    // softmax gives a distribution, which a regression loss does not fit.
    if (activation == OutputActivation::kSoftmax && !IsClassification(loss)) {
      c.Warn(StrCat("the output", of, " ends with softmax but the loss ",
                    LossAbbreviation(loss),
                    " is a regression loss; a cross-entropy fits "
                    "probabilities"));
    }
    if ((loss == LossKind::kCategoricalCrossEntropy ||
         loss == LossKind::kSparseCategoricalCrossEntropy) &&
        !(activation == OutputActivation::kSoftmax ||
          activation == OutputActivation::kLogSoftmax)) {
      c.Warn(StrCat("the loss ", LossAbbreviation(loss), of,
                    " expects probabilities but the output has no softmax; "
                    "use CCEL for logits"));
    }
    if (loss == LossKind::kCategoricalCrossEntropyWithLogits && probabilities) {
      c.Warn(StrCat("CCEL", of,
                    " expects logits but the output already "
                    "applies an activation"));
    }
    if (loss == LossKind::kBinaryCrossEntropy &&
        activation != OutputActivation::kSigmoid) {
      c.Warn(StrCat("BCE", of,
                    " expects probabilities in (0, 1) but the "
                    "output has no sigmoid"));
    }
  }
}

void AdviseScaling(Context& c) {
  Hyperparameters& h = c.h();
  const DagProfile& profile = c.profile;
  if (h.gradient_scaling == GradientScaling::kAuto) {
    // Any heavy operation in float16 needs it: its gradients underflow
    // without (the warning below says so when scaling is turned off).
    const bool on = profile.heavy_float16 > 0;
    h.gradient_scaling = on ? GradientScaling::kOn : GradientScaling::kOff;
    c.Decide(
        StrCat("gradient scaling ", GradientScalingName(h.gradient_scaling)),
        on ? StrCat(profile.heavy_float16, " of ", profile.heavy,
                    " heavy operations run in float16, whose "
                    "gradients underflow without scaling")
           : StrCat("all ", profile.heavy,
                    " heavy operations run in float32, whose small gradients "
                    "need no scaling up"));
  } else if (h.gradient_scaling == GradientScaling::kOff &&
             profile.heavy_float16 > 0) {
    c.Warn(
        "float16 heavy operations with gradient scaling off: the gradients "
        "will underflow and training will almost certainly stall");
  }
}

void AdviseClipping(Context& c) {
  Hyperparameters& h = c.h();
  const DagProfile& profile = c.profile;
  if (h.gradient_clipping != GradientClipping::kAuto) return;
  // Gradients explode through many layers (or steps of a recurrence).
  // Through one hidden layer they do not, and clipping the gradients of a
  // small set's larger batches only slows learning: on iris (split seeds
  // 1-20) clipping off never did worse and did better on 4 splits.
  bool agc = profile.depth > 15 && !profile.normalization;
  bool shallow = profile.depth <= kShallowDepth && !profile.recurrent;
  h.gradient_clipping = agc       ? GradientClipping::kAgc
                        : shallow ? GradientClipping::kOff
                                  : GradientClipping::kGlobal;
  if (agc) {
    c.Decide("gradient clipping AGC",
             StrCat("the model is deep (", profile.depth,
                    " heavy layers) without normalization layers, as "
                    "normalizer-free networks that need adaptive clipping"));
  } else if (shallow) {
    c.Decide("gradient clipping off",
             StrCat("the model is ", profile.depth,
                    " heavy layers deep: too shallow for its gradients to "
                    "explode, and clipping would only slow learning"));
  } else {
    c.Decide("gradient clipping global norm",
             StrCat("a step whose gradients are far larger than usual is "
                    "scaled down, which keeps training stable: the model is ",
                    profile.depth, " heavy layers deep",
                    profile.recurrent       ? " with recurrent layers"
                    : profile.normalization ? " with normalization"
                                            : "",
                    "; the limit is the gradients' rolling mean size plus "
                    "twice their spread"));
  }
}

// Why regularization 'auto' chose what it chose.
std::string RegularizationReason(const Context& c, bool l1, bool l2,
                                 bool high_capacity, bool few_samples) {
  const DagProfile& profile = c.profile;
  std::string why;
  if (l2 && few_samples) {
    why = StrCat("more parameters (", profile.parameters,
                 ") than training samples (", *c.training_samples,
                 ") in a small set, which the model would memorize");
    if (high_capacity) why += "; high capacity";
    why +=
        StrCat("; dropout density ", Fixed(profile.dropout_density), " < 0.2");
  } else if (l2) {
    why = StrCat("high capacity (", profile.depth, " heavy layers, width ",
                 profile.width, ", ", profile.parameters,
                 " parameters) and dropout density ",
                 Fixed(profile.dropout_density), " < 0.2");
  } else if (profile.dropout_density >= 0.2 && (high_capacity || few_samples)) {
    why = StrCat("dropout density ", Fixed(profile.dropout_density),
                 " >= 0.2 already regularizes");
  } else {
    why = StrCat("not high capacity (depth ", profile.depth, ", width ",
                 profile.width, ")");
    if (c.training_samples) {
      why += StrCat(" and not more parameters (", profile.parameters,
                    ") than a small training set (", *c.training_samples,
                    " samples)");
    }
  }
  if (l1) why += StrCat("; massive input (", profile.input_size, " features)");
  return why;
}

// regularization L1, L2 or L1L2 chosen with a term's weight left at 0 (the
// spec's default): that term does nothing, and the expert system picks a
// weight only under 'auto'.
void WarnWeightlessRegularization(Context& c) {
  const Hyperparameters& h = c.h();
  const bool l1 = h.regularization == Regularization::kL1 ||
                  h.regularization == Regularization::kL1L2;
  const bool l2 = h.regularization == Regularization::kL2 ||
                  h.regularization == Regularization::kL1L2;
  for (const auto& [on, lambda, name, example] :
       {std::tuple{l2, h.lambda2, "lambda2", "1e-4"},
        std::tuple{l1, h.lambda1, "lambda1", "1e-5"}}) {
    if (!on || lambda != 0) continue;
    c.Warn(StrCat("regularization ", RegularizationName(h.regularization),
                  " with ", name,
                  " 0: that term has no weight and does "
                  "nothing; give ",
                  name, " (such as ", example,
                  "), or regularization auto to let the expert system "
                  "pick one"));
  }
}

void AdviseRegularization(Context& c) {
  Hyperparameters& h = c.h();
  const DagProfile& profile = c.profile;
  if (h.regularization != Regularization::kAuto) {
    WarnWeightlessRegularization(c);
    return;
  }
  bool high_capacity = (profile.depth >= 3 && profile.width >= 128) ||
                       profile.parameters > 1000000;
  // A small training set that the model has more parameters than samples
  // for is memorized within a few epochs (digits: 2,410 parameters, about
  // 1,100 samples, the training loss near 0 while the validation loss
  // climbs), so it gets a stronger L2 than structural capacity alone.
  bool few_samples = c.training_samples && *c.training_samples > 0 &&
                     *c.training_samples < kFewSamples &&
                     profile.parameters > *c.training_samples;
  bool low_dropout = profile.dropout_density < 0.2;
  // A weight the user gave turns its term on (the spec's default is 0).
  const bool given_l2 = h.lambda2 > 0, given_l1 = h.lambda1 > 0;
  bool l2 = ((high_capacity || few_samples) && low_dropout) || given_l2;
  bool l1 = profile.input_size > 5000 || given_l1;
  h.regularization = l1 && l2 ? Regularization::kL1L2
                     : l1     ? Regularization::kL1
                     : l2     ? Regularization::kL2
                              : Regularization::kOff;
  if (l2 && h.lambda2 == 0) h.lambda2 = few_samples ? 1e-3 : 1e-4;
  if (l1 && h.lambda1 == 0) h.lambda1 = 1e-5;
  c.Decide(
      StrCat("regularization ", RegularizationName(h.regularization),
             l2 ? StrCat(" (lambda2 ", Fixed(h.lambda2), ")") : "",
             l1 ? StrCat(" (lambda1 ", Fixed(h.lambda1), ")") : ""),
      given_l1 || given_l2
          ? StrCat(given_l2 ? StrCat("lambda2 ", Fixed(h.lambda2), " was given")
                            : "",
                   given_l1 && given_l2 ? " and " : "",
                   given_l1 ? StrCat("lambda1 ", Fixed(h.lambda1), " was given")
                            : "",
                   ", which turns its term on")
          : RegularizationReason(c, l1, l2, high_capacity, few_samples));
}

// float16 risks and the NPU nudge.
void AdviseFloat16(Context& c) {
  const DagProfile& profile = c.profile;
  if (!c.dag.widened.empty()) {
    std::string layers;
    for (const dag::WidenedLayer& w : c.dag.widened) {
      StrAppend(&layers, layers.empty() ? "" : ", ", w.op, " (line ", w.line,
                ")");
    }
    c.Decide(StrCat(layers, " computed in float32"),
             "float16 data cast up and the result back: exponentials and "
             "sums of squares pass float16's largest value, 65504, early "
             "(e^x past x = 11); dataType=float16 on a layer keeps it in "
             "float16");
  }
  if (!profile.float16_vulnerable.empty()) {
    std::string ops;
    for (const std::string& op : profile.float16_vulnerable) {
      ops += (ops.empty() ? "" : ", ") + op;
    }
    c.Warn(StrCat(
        "float16 ", ops,
        ": these overflow float16's range (65504) easily, and their layers "
        "ask for float16 (dataType=float16); without it they compute in "
        "float32"));
  }
  // The NPU nudge: heavy operations lingering in float32 in a model that
  // uses float16 elsewhere (or is optimized for the edge), counted once.
  const int f32_heavy = profile.heavy - profile.heavy_float16;
  const bool edge = c.h().optimize_for == OptimizeFor::kEdge;
  if (f32_heavy > 0 && (edge || profile.float16_ops > 0)) {
    c.Warn(StrCat(
        f32_heavy, " of ", profile.heavy,
        " heavy operations (matmul, gemm, convolutions; ",
        profile.heavy_float32_parameters,
        " parameters) linger in float32: in float16 (dataType=float16 on "
        "their layers) an NPU could run them, faster and on less power; keep "
        "them float32 where the precision matters",
        edge ? "; optimizeFor 'edge' cannot move them to float16 on this "
               "backend yet"
             : ""));
  }
}

void AdviseLossWeights(Context& c) {
  Hyperparameters& h = c.h();
  if (c.dag.outputs.size() <= 1 || !h.loss_weights.empty()) return;
  c.advice.uncertainty_weights = true;
  c.Decide("learned uncertainty loss weights",
           StrCat(c.dag.outputs.size(),
                  " outputs: each gets a learned log-variance s_i so that no "
                  "task drowns out the others"));
  if (c.MostlyFloat16() && h.scale < 128) {
    h.scale = 128;
    c.Decide("gradient scale 128",
             "uncertainty weighting in float16 needs a scale of at least 128");
  }
}

// The optimizer left 'auto': the recipe for the model's architecture
// (recipes.h), a decision naming what it matched; the recipe's weight
// decay unless one was given.
void AdviseRecipe(Context& c) {
  Hyperparameters& h = c.h();
  if (h.optimizer != OptimizerKind::kAuto) return;
  const Recipe recipe = ChooseRecipe(ArchitectureOf(c.dag), c.training_samples,
                                     c.profile.parameters);
  h.optimizer = recipe.optimizer;
  std::string decay;
  if (recipe.weight_decay && !h.weight_decay) {
    h.weight_decay = recipe.weight_decay;
    decay = StrCat(", weight decay ", FormatNumber(*recipe.weight_decay));
  }
  c.Decide(
      StrCat("optimizer ", OptimizerName(h.optimizer), decay),
      StrCat("the ", recipe.name, " recipe: the model has ", recipe.matched,
             "; ", recipe.why, " (give --optimizer to choose another)"));
}

// Batch size, epochs and patience left 'auto': sized by the training set,
// so that a 90-row set gets hundreds of epochs and a 45,000-row one ten.
void AdviseLength(Context& c) {
  Hyperparameters& h = c.h();
  const int64_t n = c.training_samples.value_or(0);
  if (h.batch_size == 0) {
    if (n > 0) {
      // About 32 steps of the set per epoch for classification; regression
      // targets carry noise that a batch must average, so about 4 steps.
      const bool regression = !IsClassification(c.specs.front().loss);
      const double steps = regression ? kRegressionSteps : kClassificationSteps;
      const int largest =
          regression ? kLargestRegressionBatch : kLargestClassificationBatch;
      const double ideal = std::log2(std::max(1.0, n / steps));
      h.batch_size = std::clamp(1 << static_cast<int>(std::lround(ideal)),
                                kSmallestBatch, largest);
      c.Decide(StrCat("batch size ", h.batch_size),
               StrCat("samples a training step, so that a pass over the ", n,
                      " training samples takes ",
                      (n + h.batch_size - 1) / h.batch_size, " steps",
                      regression ? " (regression: larger batches average the "
                                   "targets' noise)"
                                 : "",
                      "; the power of two nearest n / ", steps, " within ",
                      kSmallestBatch, "..", largest, "; --batch-size sets it"));
    } else {
      h.batch_size = 32;  // nothing to size it by
    }
  }
  const bool auto_epochs = h.epochs == 0;
  if (auto_epochs) {
    if (n > 0) {
      h.epochs = std::clamp(
          static_cast<int>(
              std::lround(kEpochsAtReference *
                          std::pow(kReferenceSamples / static_cast<double>(n),
                                   kEpochsExponent))),
          kFewestEpochs, kMostEpochs);
      const int64_t steps = static_cast<int64_t>(h.epochs) *
                            ((n + h.batch_size - 1) / h.batch_size);
      c.Decide(StrCat("epochs ", h.epochs, " (", steps, " steps)"),
               StrCat("passes over the training data, at most: a small set "
                      "needs many and a large one few, so ",
                      n, " training samples get ", h.epochs,
                      "; the run stops earlier when the validation loss "
                      "stops improving; --epochs sets it (",
                      kEpochsAtReference,
                      " at 45,000 samples, growing as "
                      "the set shrinks: 10·(45000 / n)^0.6 within ",
                      kFewestEpochs, "..", kMostEpochs, ")"));
    } else {
      h.epochs = 20;  // the specification's
    }
  }
  if (h.patience == 0) {
    h.patience = auto_epochs ? std::max(10, h.epochs / 4) : 500;
    if (auto_epochs) {
      c.Decide(StrCat("patience ", h.patience),
               StrCat("a run whose validation loss has not improved for ",
                      h.patience, " epochs ends there: a quarter of the ",
                      h.epochs, " planned (at least 10); --patience sets it"));
    }
  }
  if (h.warmup_epochs == 0 && h.epochs > 0) {
    const int warmup = std::max(1, static_cast<int>(0.05 * h.epochs));
    c.Decide(StrCat("warmup ", warmup, warmup == 1 ? " epoch" : " epochs"),
             StrCat("the learning rate rises from 0 to its maximum over the "
                    "first ",
                    warmup, warmup == 1 ? " epoch" : " epochs",
                    " and then falls along a cosine to 0 at the last: "
                    "warmupEpochs 0 (the default) means 5% of the epochs, at "
                    "least 1; --warmup-epochs sets it"));
  }
}

// The step budget of a sign-based optimizer: lion and rlion move each
// parameter by at most about lr a step, and warmup with cosine annealing
// averages about half the maximum, so a run travels about lr * steps / 2.
void AdviseStepBudget(Context& c) {
  const Hyperparameters& h = c.h();
  if (h.optimizer != OptimizerKind::kLion &&
      h.optimizer != OptimizerKind::kRLion) {
    return;
  }
  if (!c.training_samples || *c.training_samples <= 0 || h.batch_size <= 0 ||
      !h.lr) {
    return;  // an automatic lr is chosen by a range test in training
  }
  double lr = *h.lr;
  int64_t steps = (*c.training_samples + h.batch_size - 1) / h.batch_size *
                  static_cast<int64_t>(h.epochs);
  double travel = lr * static_cast<double>(steps) / 2;
  if (travel < kLeastTravel) {
    c.Warn(StrCat(OptimizerName(h.optimizer),
                  " moves a parameter by at most about lr a step: ", steps,
                  " steps (", h.epochs, " epochs) at lr ", Fixed(lr),
                  " let it travel about ", Fixed(travel),
                  " in all, too little to train far from its start; raise "
                  "epochs or lr"));
  }
}

// Feature scale: warn far from unit scale; start the first layer at unit
// scale whenever the features are not.
void AdviseFeatureScale(Context& c) {
  if (!c.feature_rms || *c.feature_rms <= 0) return;
  double rms = *c.feature_rms;
  if (rms > 4 || rms < 0.25) {
    c.Warn(StrCat("the input features are far from unit scale (RMS ",
                  Fixed(rms),
                  "); standardizing them (standardize) usually trains faster "
                  "and better"));
  }
  if (rms > 2 || rms < 0.5) {
    c.advice.input_init_scale = 1.0 / rms;
    c.Decide(StrCat("first layer's initial weights scaled by ",
                    Fixed(c.advice.input_init_scale)),
             StrCat("so that its outputs start at unit scale for features "
                    "of RMS ",
                    Fixed(rms)));
  }
}

}  // namespace

// Whether the first input is only ever read (through casts) as the
// indices of gather: token ids into an embedding, whose values are no
// features to scale.
bool IdsInput(const dag::Dag& dag) {
  if (dag.inputs.empty()) return false;
  const ir::Graph& g = dag.graph;
  std::vector<ir::ValueId> values = {g.node(dag.inputs[0].node).outputs[0]};
  bool read = false;
  while (!values.empty()) {
    const ir::ValueId v = values.back();
    values.pop_back();
    for (ir::NodeId id : g.Consumers(v)) {
      const ir::Node& n = g.node(id);
      if (n.kind != ir::NodeKind::kOp) return false;
      if (n.op->kind == ir::OpKind::kCast) {
        values.push_back(n.outputs[0]);
      } else if (n.op->kind == ir::OpKind::kGather && n.operands.size() > 1 &&
                 n.operands[1] == v && n.operands[0] != v) {
        read = true;
      } else {
        return false;
      }
    }
  }
  return read;
}

Advice Advise(const dag::Dag& dag, const DagProfile& profile,
              const Hyperparameters& requested, const OutputSpec& loss,
              std::optional<double> feature_rms,
              std::optional<int64_t> training_samples) {
  return Advise(dag, profile, requested, std::vector<OutputSpec>{loss},
                feature_rms, training_samples);
}

Advice Advise(const dag::Dag& dag, const DagProfile& profile,
              const Hyperparameters& requested,
              const std::vector<OutputSpec>& specs,
              std::optional<double> feature_rms,
              std::optional<int64_t> training_samples) {
  Advice advice;
  advice.resolved = requested;
  if (specs.empty()) return advice;
  // Ids (an input read only as gather's indices: an embedding) have no
  // scale to correct.
  if (IdsInput(dag)) feature_rms.reset();
  Context c{dag, profile, specs, feature_rms, training_samples, advice};
  AdviseLossMismatch(c);
  AdviseScaling(c);
  AdviseClipping(c);
  AdviseRegularization(c);
  AdviseFloat16(c);
  AdviseLossWeights(c);
  AdviseRecipe(c);
  AdviseLength(c);
  AdviseStepBudget(c);
  AdviseFeatureScale(c);
  return advice;
}

absl::StatusOr<Preview> PreviewTraining(const dag::Dag& dag,
                                        const Hyperparameters& requested,
                                        const Dataset* data) {
  Preview preview;
  std::vector<Decision> loss_decisions;
  ASSIGN_OR_RETURN(std::vector<OutputSpec> specs,
                   OutputSpecs(dag, requested, &loss_decisions, data));
  if (specs.empty())
    return absl::InvalidArgumentError("the model has no output");
  // In training's order: the losses, Advise().
  std::optional<double> rms;
  std::optional<int64_t> samples;
  if (data != nullptr) {
    RETURN_IF_ERROR(CheckShapes(dag, *data, specs));
    rms = FeatureRms(*data);
    samples = static_cast<int64_t>(data->subset(Subset::kTraining).size());
  }
  for (Decision& d : loss_decisions) preview.decisions.push_back(std::move(d));
  Advice advice = Advise(dag, Profile(dag), requested, specs, rms, samples);
  for (Decision& d : advice.decisions)
    preview.decisions.push_back(std::move(d));
  preview.warnings = std::move(advice.warnings);
  preview.resolved = advice.resolved;
  return preview;
}

}  // namespace webnnm::train
