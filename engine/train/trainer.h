// Training a model on a dataset: the loop around the training and
// evaluation graphs (graphs.h), on a backend.
//
// Train() initialises the parameters (seeded), scouts `seeds` starting
// points and keeps the best, then runs `epochs` epochs of shuffled batches
// (the last one short and masked) with linear warmup and cosine annealing
// of the learning rate, dynamic loss scaling and the clipping state kept on
// the host, validates after each epoch, keeps the parameters of the best
// epoch (lowest validation loss, or training loss without a validation
// subset), stops after `patience` epochs without improvement, and tests
// the best parameters. Everything is deterministic in `seed` for a backend
// and thread count.
#ifndef WEBNNM_ENGINE_TRAIN_TRAINER_H_
#define WEBNNM_ENGINE_TRAIN_TRAINER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/train/dataset.h"
#include "engine/train/graphs.h"

namespace webnnm::train {

// The specification's training hyperparameters (names as there), plus
// seed, threads, batchSize, clipAlpha and agcLambda.
struct Hyperparameters {
  int epochs = 20;
  std::optional<double> lr;  // default: the optimizer's
  int warmup_epochs = 0;     // 0: max(1, 5% of epochs)
  int seeds = 100;
  int patience = 500;
  std::string loss_weights = "auto";
  std::string optimizer = "rlion";
  std::optional<double> weight_decay, momentum_factor, beta1, beta2;
  double freeze = 0;
  std::string regularization = "auto";
  double lambda1 = 0, lambda2 = 0;
  std::string optimize_for = "size";
  std::string gradient_scaling = "auto";
  std::string gradient_clipping = "auto";
  double scale = 1000;
  int growth_interval = 1000;
  uint64_t seed = 1;
  int threads = 1;
  int batch_size = 32;
  double clip_alpha = 0.99;
  double agc_lambda = 0.01;
};

// A decision of the expert system or the trainer, with its reason.
struct Decision {
  std::string what, why;
};

struct EpochReport {
  int epoch = 0;  // 1-based
  int epochs = 0;
  double train_loss = 0;
  std::optional<double> validation_loss;
  double lr = 0;
  double samples_per_second = 0;
};

struct OutputScore {
  double loss = 0;
  std::optional<double> accuracy;
};

struct Evaluation {
  int64_t samples = 0;
  double loss = 0;  // the weighted total
  std::optional<double> accuracy;
  std::map<std::string, OutputScore> outputs;
};

struct TrainResult {
  int epochs = 0;
  int best_epoch = 0;
  double train_samples_per_second = 0;
  double final_train_loss = 0;
  std::optional<double> validation_loss;  // at the best epoch
  Evaluation test;
  std::vector<Decision> decisions;
  std::vector<std::string> warnings;
  // The best parameters, by name (trainable and running statistics).
  std::map<std::string, std::vector<float>> parameters;
};

struct TrainCallbacks {
  std::function<void(const EpochReport&)> epoch;
  std::function<void(const Decision&)> decision;
  std::function<void(const std::string&)> warning;
};

absl::StatusOr<TrainResult> Train(const dag::Dag& dag, const Dataset& dataset,
                                  const Hyperparameters& hyper,
                                  backends::Backend& backend,
                                  const TrainCallbacks& callbacks = {});

// Tests `parameters` on the dataset's test subset.
absl::StatusOr<Evaluation> Test(
    const dag::Dag& dag, const Dataset& dataset,
    const std::map<std::string, std::vector<float>>& parameters,
    const Hyperparameters& hyper, backends::Backend& backend);

// The loss for the model's output: model:loss when given, else the expert
// system's choice from the output activation (softmax: CCE, sigmoid: BCE,
// logSoftmax: CCE, otherwise MSE), with its reason.
absl::StatusOr<OutputSpec> ChooseLoss(const dag::Dag& dag,
                                      const std::string& output,
                                      const std::string& declared_loss,
                                      Decision* decision);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_TRAINER_H_
