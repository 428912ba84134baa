// The C++ engine API, mirroring the specification's NNModel (docs/api.md):
// create a model from source, bind a dataset, create inference contexts,
// set their inputs, run, read outputs; test and train on the dataset.
//
//   auto model = NNModel::Create({.source = text, .dataset = &data});
//   auto context = model->CreateContext();          // batch size 1
//   RETURN_IF_ERROR(context->SetData({1, 2, 3, 4}));  // the first input
//   RETURN_IF_ERROR(model->Run(*context));
//   auto output = context->Output();                // the first output
//   auto trained = model->Train(
//       {.epochs = 300, .optimizer = train::OptimizerKind::kSgdm});
//   auto tested = model->Test();
//
// A model owns its parameters (initialised with seed 1 at Create; Train()
// replaces them with the best epoch's); contexts compile the inference
// graph for their batch size on first use and run with the model's current
// parameters (copied into the context when they changed since its last
// Run). Every failure is an absl::Status saying what is
// wrong; nothing aborts on user input.
#ifndef WEBNNM_ENGINE_API_NNMODEL_H_
#define WEBNNM_ENGINE_API_NNMODEL_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/run.h"
#include "engine/train/state.h"
#include "engine/train/trainer.h"

namespace webnnm {

// A tensor's values as doubles (any data type), with its type.
struct TensorView {
  std::string name;
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;  // batch (and sequence) included
  std::vector<double> values;
};

struct ModelConfig {
  std::string source;                       // the model text
  std::string file = "model.wnm";           // its name in diagnostics
  const train::Dataset* dataset = nullptr;  // for Test() and Train()
  std::string backend = "cpu";
  int threads = 1;
  uint64_t seed = 1;  // the initial parameters'
};

class NNModel;

// An inference context: a batch size, a sequence length (for sequenced
// inputs) and the model inputs' values.
class Context {
 public:
  // The batch size (default 1); the inputs are reset to zeros.
  absl::Status SetBatchSize(int64_t batch);
  int64_t batch_size() const { return batch_; }
  // The steps of every sequenced input (default 1); the inputs are reset.
  absl::Status SetSequenceLength(int64_t steps);
  int64_t sequence_length() const { return sequence_; }
  // Ragged sequences: each row's real steps (1..the sequence length; rows
  // past `lengths` are padding). The first call recompiles the context
  // with a step mask (train/lower.h: the lstm and gru layers keep their
  // state over the padded steps), which resets the inputs: call it before
  // SetData; rows past `lengths` are padding (all masked). A later
  // SetBatchSize or SetSequenceLength keeps the mask with every row at full
  // length until lengths are set again. InvalidArgument for a length out of
  // range or more lengths than rows, or a model with no lstm or gru.
  absl::Status SetStepLengths(std::span<const int64_t> lengths);

  // Sets an input block's values (every element, row-major); without a
  // name, the first input.
  absl::Status SetData(std::span<const double> data);
  absl::Status SetData(std::string_view block, std::span<const double> data);
  // Uniform random values in [lower, upper), seeded.
  absl::Status Randomize(std::string_view block = "", double lower = -1,
                         double upper = 1, uint64_t seed = 1);

  // An input's current values, or an output's from the last Run(); empty
  // name: the first.
  absl::StatusOr<TensorView> Input(std::string_view name = "") const;
  absl::StatusOr<TensorView> Output(std::string_view name = "") const;

 private:
  friend class NNModel;
  explicit Context(NNModel& model) : model_(&model) {}
  absl::Status Compile();

  NNModel* model_;
  int64_t batch_ = 1;
  int64_t sequence_ = 1;
  bool step_mask_ = false;
  std::vector<int64_t> step_lengths_;  // SetStepLengths'; empty: every step
  uint64_t params_written_ = 0;        // the model's params_version_ in exe_
  absl::Status WriteStepMask();
  std::unique_ptr<backends::Executable> exe_;
  bool ran_ = false;
};

class NNModel {
 public:
  static absl::StatusOr<std::unique_ptr<NNModel>> Create(
      const ModelConfig& config);
  // The same from a DAG the caller already checked from config.source (so
  // the model is not parsed again).
  static absl::StatusOr<std::unique_ptr<NNModel>> Create(
      const ModelConfig& config, dag::Dag checked);

  const dag::Dag& dag() const { return *dag_; }
  const train::Params& parameters() const { return params_; }
  absl::Status SetParameters(const train::Params& params);

  absl::StatusOr<std::unique_ptr<Context>> CreateContext();
  // Runs the inference graph on the context's inputs.
  absl::Status Run(Context& context);

  // Tests the current parameters on the bound dataset's test subset.
  absl::StatusOr<train::Evaluation> Test(int64_t batch_size = 32);
  // Trains on the bound dataset (the spec's hyperparameters; threads from
  // the config); the model keeps the best epoch's parameters.
  absl::StatusOr<train::TrainResult> Train(
      train::Hyperparameters hyperparameters,
      const train::TrainCallbacks& callbacks = {});

  // A tensor as text, for logs: "[1, 2, 3] (int32 [1, 3])".
  static std::string View(const TensorView& tensor);

 private:
  friend class Context;
  NNModel() = default;
  // The run of the bound dataset, to test or to train.
  absl::StatusOr<std::unique_ptr<train::Run>> PrepareRun(
      const train::Hyperparameters& hyperparameters, bool test) const;

  ModelConfig config_;
  std::unique_ptr<dag::Dag> dag_;
  std::unique_ptr<backends::Backend> backend_;
  train::Params params_;
  // Moves whenever params_ changes: a context copies the parameters into
  // its executable only when it has not written this version yet.
  uint64_t params_version_ = 1;
};

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_API_NNMODEL_H_
