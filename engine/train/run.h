// One way to run a model on a dataset: what `webnnmctl train --local` and
// `test --local`, the daemon's jobs, CheckModel's preview and NNModel share.
//
// Run::Prepare() takes a checked model (its DAG, borrowed), the data (a file
// or folder to read, or a dataset already in memory), the hyperparameters,
// an optional snapshot and a backend, and does everything before the first
// step, once: it checks the hyperparameters, fits the snapshot to the model,
// picks the seed (the snapshot's, else the hyperparameters') and the split
// (the one given, the snapshot's, else 70,15,15), reads and splits the data,
// imputes its missing values (as asked or as the snapshot says, a
// decision), standardizes it (as asked, as the snapshot says, or as the
// expert system decides, a decision) and opens the backend. Then
//   - Train() trains from scratch, or continues the snapshot's run, and tests
//     the best epoch, reporting through TrainCallbacks (decisions, warnings,
//     scouting, epochs, checkpoints, the test);
//   - Test() tests the snapshot's best parameters on the test subset;
//   - PreviewTraining() says what training would decide before its first
//     step (a run prepared without a backend does only this: checking a
//     submission, CheckModel's preview);
//   - Snapshot() makes the snapshot of a state of this run.
//
// Errors of Prepare(), by code: InvalidArgument for a bad argument (a
// hyperparameter, the split's text, a split that leaves a subset empty that
// the purpose needs, an unknown backend); NotFound for a data path that
// does not exist; FailedPrecondition when the data or the snapshot do not
// suit the model (bad rows, a feature count, other classes, other
// parameters). Messages name the data as `dataset_name`, never its path.
//
// A Run is used by one thread at a time.
#ifndef WEBNNM_ENGINE_TRAIN_RUN_H_
#define WEBNNM_ENGINE_TRAIN_RUN_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/expert/expert.h"
#include "engine/train/checkpoint.h"
#include "engine/train/data_source.h"
#include "engine/train/trainer.h"

namespace webnnm::train {

enum class RunPurpose {
  kTrain,  // Train(): a training subset is needed
  kTest,   // Test(): a test subset is needed
};

struct RunSpec {
  RunPurpose purpose = RunPurpose::kTrain;
  // The model, checked (borrowed: it must outlive the run), with its text
  // and file name for snapshots.
  const dag::Dag* dag = nullptr;
  std::string model_file = "model.wnm";
  std::string model_source;
  // The model's own warnings (check.h ModelWarnings): a new run reports
  // them first, as warnings of the run; every run's result lists them.
  std::vector<std::string> model_warnings;
  // The data: `source` to read, or `dataset` (borrowed, already split; used
  // as it is, never standardized) when not null.
  DataSource source;
  const Dataset* dataset = nullptr;
  // How `source` is read (null: ReadDataFor): a cache may answer instead.
  std::function<absl::StatusOr<Dataset>(const dag::Dag&, const DataSource&)>
      read;
  std::string dataset_name;  // what messages call the data
  std::string dataset_ref;   // what snapshots record ("": dataset_name)
  std::string split;         // "": the snapshot's, else 70,15,15
  // Standardize the data of a new run: as the expert system decides
  // (AdviseStandardization), or as asked.
  StandardizeMode standardize = StandardizeMode::kAuto;
  // Fill a CSV file's missing feature values in a new run (dataset.h; a
  // decision): kAuto with the median when there are any, kNone refuses
  // them. A snapshot's imputation applies to the data of a resumed run, a
  // test and a prediction, whatever this says.
  ImputeMode impute = ImputeMode::kAuto;
  // Training: the hyperparameters of a new run; a resumed run keeps its
  // own but `threads` and what `given` changes. Testing: `threads`, and
  // `batch_size` when `test_batch_size` is set.
  Hyperparameters hyperparameters;
  // Training with a snapshot: the hyperparameters the caller set by name
  // (the command line's flags). Among them epochs, lr, patience and
  // timeBudget change the resumed run (the trainer's decisions say how);
  // any other whose value differs from the snapshot's is refused
  // (InvalidArgument naming each), as is a `split` or a `standardize`
  // other than the snapshot's, and data other than its.
  HyperparameterValues given;
  bool test_batch_size = false;
  // kTrain: the run to continue (null: a new one); kTest: what Test()
  // tests (its best parameters, data facts and hyperparameters).
  const ModelSnapshot* snapshot = nullptr;
  std::string backend = "cpu";  // "": none (checking and previews only)
  // An open backend to use instead (borrowed: it must outlive the run).
  backends::Backend* open_backend = nullptr;
};

class Run {
 public:
  static absl::StatusOr<std::unique_ptr<Run>> Prepare(const RunSpec& spec);

  const dag::Dag& dag() const { return *spec_.dag; }
  const Dataset& data() const { return *data_; }
  // The decisions preparing made (standardization), in order.
  const std::vector<Decision>& decisions() const { return decisions_; }
  // The hyperparameters a new run starts from (a resumed run: the
  // snapshot's).
  const Hyperparameters& hyperparameters() const { return hyper_; }
  // Whether the data fits the model as training and testing will check
  // it — classes and features against the outputs and inputs, one loss
  // weight per output — (InvalidArgument saying what does not), so that a
  // daemon refuses a submission instead of failing its job.
  absl::Status CheckDataFits() const;

  // Trains and tests (kTrain). The decisions of preparing are reported
  // first and lead the result's and every snapshot's decisions.
  absl::StatusOr<TrainResult> Train(const TrainCallbacks& callbacks = {});
  // As one replica of a data-parallel run (trainer.h); null: alone.
  absl::StatusOr<TrainResult> Train(const TrainCallbacks& callbacks,
                                    Collective* collective);
  // Tests the snapshot's best parameters (kTest), or `parameters`.
  absl::StatusOr<Evaluation> Test();
  absl::StatusOr<Evaluation> Test(const Params& parameters);
  // What Train() would decide before its first step (a new run).
  absl::StatusOr<Preview> PreviewTraining() const;
  // The snapshot of `state`: the model, the data's facts, the split, the
  // standardization and the state (preparing's decisions first).
  ModelSnapshot Snapshot(const TrainState& state) const;

 private:
  explicit Run(const RunSpec& spec) : spec_(spec) {}
  absl::Status FitSnapshot();
  // A new run's decision naming the label column and what it holds (the
  // classes, or the range of values), and the warnings of its choice.
  void LabelDecision();
  // A resumed run's changes (spec_.given, split, standardize) over the
  // snapshot's hyperparameters in hyper_, or the refusal.
  absl::Status ApplyResumeChanges();
  // A fingerprint of the data as trained on (after standardization).
  uint64_t DataFingerprint() const;
  absl::Status LoadData();
  absl::Status Standardize();
  // Imputes missing values (a new run) or applies the snapshot's.
  absl::Status Impute();
  // Which of the data's targets feed the output `output`.
  std::optional<size_t> TargetsOf(const std::string& output) const;

  RunSpec spec_;
  Hyperparameters hyper_;
  std::string split_;
  std::optional<Dataset> owned_;  // read here
  const Dataset* data_ = nullptr;
  std::vector<Decision> decisions_;
  std::vector<std::string> warnings_;  // preparing's (the label's choice)
  uint64_t fingerprint_ = 0;  // of the data (kTrain)
  std::unique_ptr<backends::Backend> owned_backend_;
  backends::Backend* backend_ = nullptr;
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_RUN_H_
