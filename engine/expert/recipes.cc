#include "engine/expert/recipes.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/base/strings.h"
#include "engine/ir/op_def.h"
#include "engine/train/graphs.h"

namespace webnnm::train {
namespace {

// Whether `output` is sequenced (a value a step) and classified.
bool TokenClasses(const dag::Dag& dag, const dag::Endpoint& output) {
  const ir::Node& node = dag.graph.node(output.node);
  if (node.operands.empty()) return false;
  const std::vector<int64_t>& shape =
      dag.graph.value(node.operands[0]).type.shape;
  const bool sequenced =
      std::find(shape.begin(), shape.end(), ir::kSequenceDim) != shape.end();
  const OutputActivation a = ActivationOf(dag, output.name);
  return sequenced && (a == OutputActivation::kSoftmax ||
                       a == OutputActivation::kLogSoftmax);
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

Architecture ArchitectureOf(const dag::Dag& dag) {
  Architecture a;
  for (const dag::LayerInfo& layer : dag.layers) {
    if (layer.op == "attend") a.attention = true;
    if (layer.op == "embedding") a.embedding = true;
  }
  for (const ir::Node& node : dag.graph.nodes()) {
    if (node.kind != ir::NodeKind::kOp || node.dead) continue;
    switch (node.op->kind) {
      case ir::OpKind::kLstm:
      case ir::OpKind::kLstmCell:
      case ir::OpKind::kGru:
      case ir::OpKind::kGruCell:
        a.recurrence = true;
        break;
      case ir::OpKind::kConv2d:
      case ir::OpKind::kConvTranspose2d:
        a.convolution = true;
        break;
      default:
        break;
    }
    if (node.op->category == ir::OpCategory::kNormalization) {
      a.normalization = true;
    }
  }
  for (const dag::Endpoint& output : dag.outputs) {
    if (a.embedding && TokenClasses(dag, output)) a.token_classes = true;
  }
  return a;
}

double DenseWeightDecay(int64_t training_samples) {
  const double n = static_cast<double>(std::max<int64_t>(1, training_samples));
  return std::clamp(kDenseDecayScale / std::sqrt(n), kLeastDenseDecay,
                    kMostDenseDecay);
}

Recipe ChooseRecipe(const Architecture& a,
                    std::optional<int64_t> training_samples,
                    int64_t parameters) {
  std::vector<std::string> parts;
  if (a.attention) parts.push_back("attention");
  if (a.normalization) parts.push_back("normalization");
  if (a.recurrence) parts.push_back("recurrence");
  if (a.convolution) parts.push_back("convolution");
  if (a.embedding) parts.push_back("embeddings");
  if (a.token_classes) parts.push_back("a class a step over tokens");
  Recipe r;
  r.matched = parts.empty() ? "dense layers only" : Join(parts);
  if (a.attention) {
    r.name = "transformer";
    r.optimizer = OptimizerKind::kAdamW;
    r.weight_decay = 0.1;
    r.why =
        "attention trains best with AdamW, as transformers are trained "
        "(nanoGPT, BERT), and a weight decay of 0.1";
    return r;
  }
  const int64_t n = training_samples.value_or(0);
  const bool dense = !a.recurrence && !a.convolution && !a.embedding;
  const bool wide =
      n > 0 && static_cast<double>(parameters) >= kWideCapacity * n;
  if (dense && wide) {
    r.name = "wide dense";
    r.optimizer = OptimizerKind::kAdamW;
    r.weight_decay = DenseWeightDecay(n);
    r.why = StrCat(
        "the model has ", FormatNumber(static_cast<double>(parameters) / n),
        " parameters a training sample (", parameters, " for ", n,
        "): enough to memorize the set, so AdamW with a weight decay that "
        "holds the weights back, ",
        FormatNumber(*r.weight_decay),
        " (10 / sqrt(samples), within 0.01..1)");
    return r;
  }
  r.name = a.recurrence    ? "recurrent"
           : a.convolution ? "convolutional"
           : a.embedding   ? "embedding"
                           : "dense";
  r.optimizer = OptimizerKind::kRLion;
  r.why = StrCat(
      dense ? StrCat("the model has fewer than ", kWideCapacity,
                     " parameters a training sample; ")
            : "",
      "rlion is the optimizer the automatic rate, length and batch size were "
      "measured with on such networks");
  return r;
}

}  // namespace webnnm::train
