// Each output's loss for training and testing (trainer.h): the one the
// model declares, else one chosen from the output's activation, refined by
// what its labels are; with the loss parameters and weights asked for.
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/expert/label_advice.h"
#include "engine/train/trainer.h"

namespace webnnm::train {

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
    // In float16 the cross-entropy of a softmax is the stable CCEL form
    // (loss.cc takes the log-softmax of its logits), which the spec asks
    // for there: say so.
    bool float16 = false;
    for (const dag::Endpoint& o : dag.outputs) {
      if (o.name != output) continue;
      const ir::Node& node = dag.graph.node(o.node);
      float16 =
          !node.operands.empty() &&
          dag.graph.value(node.operands[0]).type.dtype == ir::DType::kFloat16;
    }
    *decision = {
        StrCat("loss ", LossAbbreviation(spec.loss), " for '", output, "'"),
        spec.loss == LossKind::kMeanSquaredError
            ? "the output has no softmax or sigmoid activation: regression"
            : StrCat("the output ends with ",
                     spec.loss == LossKind::kBinaryCrossEntropy ? "sigmoid"
                                                                : "softmax",
                     ", so it predicts probabilities",
                     float16 && spec.loss == LossKind::kCategoricalCrossEntropy
                         ? "; in float16 it is computed as CCEL from the "
                           "softmax's logits (a log-softmax with the "
                           "maximum subtracted), so no e^x can pass "
                           "float16's 65504"
                         : "")};
  }
  return spec;
}

namespace {

// The index in data.targets() of the output `k`'s targets, if any.
std::optional<size_t> TargetsFor(const dag::Dag& dag, const Dataset& data,
                                 size_t k) {
  const std::vector<Targets>& targets = data.targets();
  if (dag.outputs.size() == 1 && targets.size() == 1) return 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].output == dag.outputs[k].name) return i;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::vector<OutputSpec>> OutputSpecs(
    const dag::Dag& dag, const Hyperparameters& hyper,
    std::vector<Decision>* decisions, const Dataset* data) {
  const std::vector<double>& weights = hyper.loss_weights;  // empty: auto
  if (!weights.empty() && weights.size() != dag.outputs.size()) {
    return absl::InvalidArgumentError(StrCat(
        "hyperparameter lossWeights: '", LossWeightsText(weights), "' gives ",
        weights.size(), " weights for ", dag.outputs.size(), " outputs"));
  }
  std::vector<OutputSpec> specs;
  for (size_t k = 0; k < dag.outputs.size(); ++k) {
    const dag::Endpoint& o = dag.outputs[k];
    Decision decision;
    ASSIGN_OR_RETURN(OutputSpec spec,
                     ChooseLoss(dag, o.name, o.loss, &decision));
    // The labels refine a choice and say what they are.
    const std::optional<size_t> t =
        data ? TargetsFor(dag, *data, k) : std::nullopt;
    if (t) {
      const Targets& targets = data->targets()[*t];
      const std::string labels = DescribeTargets(*data, *t);
      const std::optional<LossKind> better =
          o.loss.empty() ? LossForLabels(targets, spec.loss) : std::nullopt;
      if (better) {
        spec.loss = *better;
        decision = {
            StrCat("loss ", LossAbbreviation(spec.loss), " for '", o.name, "'"),
            StrCat("its labels are ", labels,
                   ": distribution matching (the "
                   "output ends with softmax)")};
      } else {
        decision.why +=
            StrCat("; its ", targets.classification ? "labels" : "targets",
                   " are ", labels);
      }
    }
    spec.params.alpha = o.alpha.value_or(spec.params.alpha);
    spec.params.gamma = o.gamma.value_or(spec.params.gamma);
    spec.params.delta = o.delta.value_or(spec.params.delta);
    if (!weights.empty()) spec.weight = weights[k];
    if (decisions) decisions->push_back(decision);
    specs.push_back(spec);
  }
  return specs;
}

}  // namespace webnnm::train
