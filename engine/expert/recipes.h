// Recipes by architecture: what the model's DAG is made of (attention,
// normalization, recurrence, convolution, embeddings, a class a step over
// token ids) decides the optimizer a newcomer's run starts with and its
// weight decay, and the recipe says which of these it matched.
//
// The recipes (measured: docs/training.md, "Recipes by architecture"):
//   transformer   attention layers: AdamW, as transformers are trained
//                 (nanoGPT, minGPT, BERT), weight decay 0.1; the range test
//                 sweeps Adam's rates;
//   wide dense    dense layers only (tabular data) with at least
//                 kWideCapacity parameters a training sample (a starter
//                 model on a small set): AdamW with a weight decay that
//                 shrinks as the set grows (DenseWeightDecay) — on the
//                 benchmark suite's fitting half it beat rlion on small
//                 sets by 0.02-0.1 and matched it on large ones;
//   dense, convolutional, recurrent, embedding  rlion, the optimizer the
//                 no-flag rules were measured with (the shipped models:
//                 iris, digits, wine, breast cancer, diabetes, Fashion).
// Per-step classifiers over tokens (a language model: its classes are
// always skewed) get no focal-loss advice (label_advice.h).
//
// Thread-safety: pure functions.
#ifndef WEBNNM_ENGINE_EXPERT_RECIPES_H_
#define WEBNNM_ENGINE_EXPERT_RECIPES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "engine/dag/dag.h"
#include "engine/train/hyperparameters.h"

namespace webnnm::train {

// What a model's DAG holds, for the recipes.
struct Architecture {
  bool attention = false;      // an attend layer
  bool normalization = false;  // a normalization layer
  bool recurrence = false;     // lstm or gru
  bool convolution = false;    // conv2d or convTranspose2d
  bool embedding = false;      // an embedding (a table read at token ids)
  // An output with a class a step of a sequence read from token ids (a
  // language model, a tagger).
  bool token_classes = false;
};

Architecture ArchitectureOf(const dag::Dag& dag);

struct Recipe {
  std::string name;     // "transformer", "recurrent", "convolutional", ...
  std::string matched;  // what in the model matched it, in words
  OptimizerKind optimizer = OptimizerKind::kRLion;
  // The weight decay the recipe gives its optimizer (nullopt: the
  // optimizer's default).
  std::optional<double> weight_decay;
  std::string why;  // why this optimizer, in words
};

// `training_samples`: the training subset's size (nullopt: unknown);
// `parameters`: the model's trainable parameters.
Recipe ChooseRecipe(const Architecture& architecture,
                    std::optional<int64_t> training_samples = std::nullopt,
                    int64_t parameters = 0);

// A dense network with at least this many parameters a training sample is
// "wide": it can memorize the set.
inline constexpr double kWideCapacity = 10;

// The wide dense recipe's AdamW weight decay for n training samples:
// kDenseDecayScale / sqrt(n) within [kLeastDenseDecay, kMostDenseDecay] —
// the strong prior a small set needs (1 at 100 rows), little for a large
// one (0.09 at 12,000). Fitted on the suite's fitting half
// (docs/training.md).
inline constexpr double kDenseDecayScale = 10;
inline constexpr double kLeastDenseDecay = 0.01;
inline constexpr double kMostDenseDecay = 1;
double DenseWeightDecay(int64_t training_samples);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_RECIPES_H_
