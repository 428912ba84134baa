// Recipes by architecture: what the model's DAG is made of (attention,
// normalization, recurrence, convolution, embeddings, a class a step over
// token ids) decides the optimizer a newcomer's run starts with and its
// weight decay, and the recipe says which of these it matched.
//
// The recipes (measured: docs/training.md, "Recipes by architecture"):
//   transformer   attention layers: AdamW, as transformers are trained
//                 (nanoGPT, minGPT, BERT), weight decay 0.1; the range test
//                 sweeps Adam's rates;
//   the others    dense, convolutional and recurrent networks: rlion, the
//                 optimizer the no-flag rules were measured with.
// Per-step classifiers over tokens (a language model: its classes are
// always skewed) get no focal-loss advice (label_advice.h).
//
// Thread-safety: pure functions.
#ifndef WEBNNM_ENGINE_EXPERT_RECIPES_H_
#define WEBNNM_ENGINE_EXPERT_RECIPES_H_

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

Recipe ChooseRecipe(const Architecture& architecture);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_RECIPES_H_
