// Training a model on a dataset: the loop around the training and
// evaluation graphs (graphs.h), on a backend.
//
// Train() initialises the parameters (seeded), scouts `seeds` starting
// points and keeps the best (scout.h; a network that dies in training, no
// first-layer weight getting a gradient any more, starts over from the
// next best, up to 3 times), then runs `epochs` epochs of shuffled batches
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
#include "engine/data/dataset.h"
#include "engine/train/collective.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

struct EpochReport {
  int epoch = 0;  // 1-based
  int epochs = 0;
  double train_loss = 0;
  std::optional<double> validation_loss;
  double lr = 0;
  double samples_per_second = 0;
  // Classification: the share of right rows (the mean over classification
  // outputs) on the epoch's training batches, as the steps saw them, and
  // on the validation subset after the epoch.
  std::optional<double> train_accuracy, validation_accuracy;
};

// Within an epoch, after each step: `step` of `steps` done (1-based), the
// rows trained in the epoch so far and its seconds.
struct StepReport {
  int epoch = 0;
  int epochs = 0;
  int64_t step = 0, steps = 0;
  int64_t rows = 0;
  double seconds = 0;
};

// Scouting's outcome: the starting point kept (1-based) of `seeds`, with
// its health on the first batch.
struct ScoutReport {
  int seeds = 0;
  int chosen = 0;
  double loss = 0, gradient_ratio = 0, dead_ratio = 0;
};

struct TrainResult {
  int epochs = 0;
  int best_epoch = 0;
  double train_samples_per_second = 0;
  double final_train_loss = 0;
  std::optional<double> validation_loss;  // at the best epoch
  Evaluation test;                        // of the best parameters (state.best)
  std::vector<Decision> decisions;
  std::vector<std::string> warnings;
  // The state after the last epoch run: save it to resume or serve.
  TrainState state;
  // A `step` callback stopped the run within an epoch: that epoch's steps
  // were dropped (the state is the last whole epoch's) and the run was
  // finished there (tested as if it had ended).
  bool interrupted = false;
};

// What a run reports as it goes (every member may be empty): the one
// callback interface of the trainer, Run (run.h), the CLI and the daemon.
struct TrainCallbacks {
  std::function<void(const EpochReport&)> epoch;
  std::function<void(const Decision&)> decision;
  std::function<void(const std::string&)> warning;
  std::function<void(const ScoutReport&)> scout;  // before its decision
  // After each training step; returning false interrupts the run there
  // (TrainResult::interrupted). Called on the training thread: keep it
  // cheap.
  std::function<bool(const StepReport&)> step;
  // After each epoch, with the state a snapshot keeps (Run::Snapshot makes
  // the snapshot of it); returning false stops the run there (it is then
  // tested as if it had ended).
  std::function<bool(const TrainState&)> checkpoint;
  // The test of the best parameters (Run::Train, when there is a test
  // subset).
  std::function<void(const Evaluation&)> test;
};

// Trains from scratch, or with `resume` continues a run from its state
// (a snapshot's): the state's resolved hyperparameters are used, except
// `threads`, and `hyper`'s epochs, patience (not 0), lr and timeBudget
// (when set) where they differ from the state's, each a decision (pass the
// state's own hyperparameters to change nothing). Other epochs than the
// state's start a new cycle of the schedule (warmup, then cosine
// annealing) from the current step to them: a warm restart, after which
// the patience counts afresh. No scouting and no expert advice again (the
// state keeps the decisions and warnings made). With the same backend,
// thread count and hyperparameters, a resumed run ends bit for bit where
// the uninterrupted run does.
//
// With a `collective`, this is one replica of a data-parallel run
// (collective.h): every replica calls Train() with the same model, data,
// hyperparameters and resume state; each steps on its share of every
// global batch (the batch size stays `hyper.batch_size`) and validates its
// share of the validation subset, the replicas summing what they computed,
// so that every replica holds the same parameters after every step.
// Scouting, the range test's decisions and the test run alike on every
// replica. Stops (a `step` or `checkpoint` callback's false, the time
// budget) are agreed: all replicas stop where one does. Callbacks need be
// given on one replica only. Batch normalization trains on each replica's
// share (as PyTorch's DDP without SyncBatchNorm), its running statistics
// averaged; dropout draws each replica's own masks. A run that went well
// ends with the collective's Done(), so the caller may close the collective
// as soon as Train() returns.
absl::StatusOr<TrainResult> Train(const dag::Dag& dag, const Dataset& dataset,
                                  const Hyperparameters& hyper,
                                  backends::Backend& backend,
                                  const TrainCallbacks& callbacks = {},
                                  const TrainState* resume = nullptr,
                                  Collective* collective = nullptr);

// Tests `parameters` on the dataset's test subset (batches of
// hyper.batch_size, hyper.threads threads), with the losses a run tuned
// after scouting (TrainState::tuned_losses).
absl::StatusOr<Evaluation> Test(const dag::Dag& dag, const Dataset& dataset,
                                const Params& parameters,
                                const Hyperparameters& hyper,
                                backends::Backend& backend,
                                const std::vector<TunedLoss>& tuned = {});

// The loss for the model's output: model:loss when given, else the expert
// system's choice from the output activation (softmax: CCE, sigmoid: BCE,
// logSoftmax: CCE, otherwise MSE), with its reason.
absl::StatusOr<OutputSpec> ChooseLoss(const dag::Dag& dag,
                                      const std::string& output,
                                      const std::string& declared_loss,
                                      Decision* decision);

// Every output's spec, in the DAG's order: its loss (ChooseLoss, with the
// output's alpha, gamma and delta) and its fixed weight from lossWeights
// ('auto', or one weight per output, comma-separated); each loss choice is
// added to `decisions` when given. With `data`, each output's labels
// refine a choice the activation made (probability rows: KLD,
// label_advice.h LossForLabels) and the decision says what they are.
absl::StatusOr<std::vector<OutputSpec>> OutputSpecs(
    const dag::Dag& dag, const Hyperparameters& hyper,
    std::vector<Decision>* decisions, const Dataset* data = nullptr);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_TRAINER_H_
