#include "engine/api/nnmodel.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/base/float16.h"
#include "engine/base/philox.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/ir/elements.h"
#include "engine/train/init.h"
#include "engine/train/lower.h"
#include "engine/train/run.h"

namespace webnnm {
namespace {

int64_t Elements(const backends::TensorSpec& spec) {
  int64_t n = 1;
  for (int64_t d : spec.shape) n *= d;
  return n;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NNModel>> NNModel::Create(
    const ModelConfig& config) {
  CheckResult check = CheckModel(config.file, config.source);
  if (!check.ok) return absl::InvalidArgumentError(check.rendered);
  return Create(config, *std::move(check.dag));
}

absl::StatusOr<std::unique_ptr<NNModel>> NNModel::Create(
    const ModelConfig& config, dag::Dag checked) {
  if (config.threads < 1) {
    return absl::InvalidArgumentError("threads must be at least 1");
  }
  std::unique_ptr<NNModel> model(new NNModel());
  model->config_ = config;
  model->dag_ = std::make_unique<dag::Dag>(std::move(checked));
  ASSIGN_OR_RETURN(model->backend_, backends::CreateBackend(config.backend));
  model->params_ = train::InitialParameters(*model->dag_, config.seed);
  return model;
}

absl::Status NNModel::SetParameters(const train::Params& params) {
  for (const auto& [name, values] : params) {
    auto it = params_.find(name);
    if (it == params_.end()) {
      if (name.starts_with("uncertainty:")) continue;  // training state
      return absl::InvalidArgumentError(
          StrCat("'", name, "' is not a parameter of this model"));
    }
    if (it->second.size() != values.size()) {
      return absl::InvalidArgumentError(StrCat("parameter '", name, "' has ",
                                               it->second.size(),
                                               " values, not ", values.size()));
    }
  }
  for (const auto& [name, values] : params) {
    if (params_.count(name)) params_[name] = values;
  }
  ++params_version_;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Context>> NNModel::CreateContext() {
  std::unique_ptr<Context> context(new Context(*this));
  RETURN_IF_ERROR(context->Compile());
  return context;
}

absl::Status Context::Compile() {
  ASSIGN_OR_RETURN(ir::Graph graph,
                   train::Lower(model_->dag(), {.batch = batch_,
                                                .sequence = sequence_,
                                                .training = false,
                                                .float32_parameters = true,
                                                .step_mask = step_mask_}));
  backends::CompileOptions options;
  options.threads = model_->config_.threads;
  ASSIGN_OR_RETURN(exe_, model_->backend_->Compile(graph, options));
  for (size_t i = 0; i < exe_->inputs().size(); ++i) {
    std::span<std::byte> bytes = exe_->input(i);
    std::memset(bytes.data(), 0, bytes.size());
  }
  ran_ = false;
  params_written_ = 0;  // a new executable: no parameters in it yet
  return step_mask_ ? WriteStepMask() : absl::OkStatus();
}

absl::Status Context::WriteStepMask() {
  const int input = exe_->FindInput(train::kStepMaskInput);
  if (input < 0) return absl::InternalError("the context lacks a step mask");
  // Rows without a given length (all of them, after a new batch size or
  // sequence length) take every step.
  std::vector<float> mask(sequence_ * batch_, 0.0f);
  for (int64_t r = 0; r < batch_; ++r) {
    const int64_t length =
        r < static_cast<int64_t>(step_lengths_.size()) ? step_lengths_[r]
        : step_lengths_.empty()                        ? sequence_
                                                       : 0;
    for (int64_t t = 0; t < length; ++t) mask[t * batch_ + r] = 1.0f;
  }
  std::memcpy(exe_->input(input).data(), mask.data(), mask.size() * 4);
  return absl::OkStatus();
}

absl::Status Context::SetBatchSize(int64_t batch) {
  if (batch < 1) {
    return absl::InvalidArgumentError(
        StrCat("the batch size must be at least 1, not ", batch));
  }
  batch_ = batch;
  step_lengths_.clear();
  return Compile();
}

absl::Status Context::SetSequenceLength(int64_t steps) {
  if (steps < 1) {
    return absl::InvalidArgumentError(
        StrCat("the sequence length must be at least 1, not ", steps));
  }
  sequence_ = steps;
  step_lengths_.clear();
  return Compile();
}

absl::Status Context::SetStepLengths(std::span<const int64_t> lengths) {
  if (static_cast<int64_t>(lengths.size()) > batch_) {
    return absl::InvalidArgumentError(StrCat(
        lengths.size(), " step lengths for a batch of ", batch_));
  }
  for (int64_t length : lengths) {
    if (length < 1 || length > sequence_) {
      return absl::InvalidArgumentError(
          StrCat("a row's length must be within 1..", sequence_,
                 " (the sequence length), not ", length));
    }
  }
  step_lengths_.assign(lengths.begin(), lengths.end());
  if (!step_mask_) {
    step_mask_ = true;
    absl::Status compiled = Compile();
    if (!compiled.ok()) {
      step_mask_ = false;
      step_lengths_.clear();
      RETURN_IF_ERROR(Compile());
      return compiled;
    }
    return absl::OkStatus();  // Compile wrote the mask
  }
  return WriteStepMask();
}

namespace {

// The named model input (or the first), checked against the DAG.
absl::StatusOr<std::string> InputName(const dag::Dag& dag,
                                      std::string_view name) {
  if (dag.inputs.empty()) return absl::NotFoundError("the model has no input");
  if (name.empty()) return dag.inputs[0].name;
  for (const dag::Endpoint& e : dag.inputs) {
    if (e.name == name) return e.name;
  }
  return absl::NotFoundError(StrCat("the model has no input '", name, "'"));
}

absl::StatusOr<std::string> OutputName(const dag::Dag& dag,
                                       std::string_view name) {
  if (dag.outputs.empty()) {
    return absl::NotFoundError("the model has no output");
  }
  if (name.empty()) return dag.outputs[0].name;
  for (const dag::Endpoint& e : dag.outputs) {
    if (e.name == name) return e.name;
  }
  return absl::NotFoundError(StrCat("the model has no output '", name, "'"));
}

}  // namespace

absl::Status Context::SetData(std::span<const double> data) {
  return SetData("", data);
}

absl::Status Context::SetData(std::string_view block,
                              std::span<const double> data) {
  ASSIGN_OR_RETURN(std::string name, InputName(model_->dag(), block));
  int i = exe_->FindInput(name);
  if (i < 0) {
    return absl::NotFoundError(
        StrCat("the input '", name, "' is not used by any output"));
  }
  const backends::TensorSpec& spec = exe_->inputs()[i];
  if (static_cast<int64_t>(data.size()) != Elements(spec)) {
    return absl::InvalidArgumentError(StrCat(
        "the input '", name, "' holds ", Elements(spec), " values (shape ",
        ir::ShapeToString(spec.shape), "); ", data.size(), " were given"));
  }
  ir::WriteElements(exe_->input(i), spec.dtype, data);
  return absl::OkStatus();
}

absl::Status Context::Randomize(std::string_view block, double lower,
                                double upper, uint64_t seed) {
  if (!(lower <= upper)) {
    return absl::InvalidArgumentError("randomize needs lower <= upper");
  }
  ASSIGN_OR_RETURN(std::string name, InputName(model_->dag(), block));
  int i = exe_->FindInput(name);
  if (i < 0) {
    return absl::NotFoundError(
        StrCat("the input '", name, "' is not used by any output"));
  }
  std::vector<double> values(Elements(exe_->inputs()[i]));
  for (size_t k = 0; k < values.size(); ++k) {
    PhiloxBlock bits = Philox4x32(
        {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32), 0x7a4d, 0},
        seed);
    values[k] = lower + (upper - lower) * UniformFloat(bits[0]);
  }
  return SetData(name, values);
}

absl::StatusOr<TensorView> Context::Input(std::string_view name) const {
  ASSIGN_OR_RETURN(std::string block, InputName(model_->dag(), name));
  int i = exe_->FindInput(block);
  if (i < 0) {
    return absl::NotFoundError(
        StrCat("the input '", block, "' is not used by any output"));
  }
  const backends::TensorSpec& spec = exe_->inputs()[i];
  return TensorView{block, spec.dtype, spec.shape,
                    ir::ReadElements(exe_->input(i), spec.dtype, Elements(spec))};
}

absl::StatusOr<TensorView> Context::Output(std::string_view name) const {
  ASSIGN_OR_RETURN(std::string block, OutputName(model_->dag(), name));
  if (!ran_) {
    return absl::FailedPreconditionError(
        "no output yet: run the model on this context first");
  }
  int i = exe_->FindOutput(block);
  if (i < 0) {
    return absl::InternalError(
        StrCat("the inference graph lacks the output '", block, "'"));
  }
  const backends::TensorSpec& spec = exe_->outputs()[i];
  return TensorView{block, spec.dtype, spec.shape,
                    ir::ReadElements(exe_->output(i), spec.dtype, Elements(spec))};
}

absl::Status NNModel::Run(Context& context) {
  if (context.model_ != this) {
    return absl::InvalidArgumentError("the context belongs to another model");
  }
  backends::Executable& exe = *context.exe_;
  if (context.params_written_ != params_version_) {
    for (const auto& [name, values] : params_) {
      int i = exe.FindInput(name);
      if (i < 0) continue;
      std::span<std::byte> bytes = exe.input(i);
      std::memcpy(bytes.data(), values.data(),
                  std::min(bytes.size(), values.size() * sizeof(float)));
    }
    context.params_written_ = params_version_;
  }
  RETURN_IF_ERROR(exe.Run());
  context.ran_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<train::Run>> NNModel::PrepareRun(
    const train::Hyperparameters& hyperparameters, bool test) const {
  if (!config_.dataset) {
    return absl::FailedPreconditionError(StrCat(
        "no dataset: give ModelConfig::dataset to ", test ? "test" : "train"));
  }
  return train::Run::Prepare(
      {.purpose = test ? train::RunPurpose::kTest : train::RunPurpose::kTrain,
       .dag = dag_.get(),
       .model_file = config_.file,
       .model_source = config_.source,
       .dataset = config_.dataset,
       .hyperparameters = hyperparameters,
       .open_backend = backend_.get()});
}

absl::StatusOr<train::Evaluation> NNModel::Test(int64_t batch_size) {
  if (batch_size < 1) {
    return absl::InvalidArgumentError("the batch size must be at least 1");
  }
  train::Hyperparameters h;
  h.batch_size = static_cast<int>(std::min<int64_t>(batch_size, 1 << 20));
  h.threads = config_.threads;
  ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                   PrepareRun(h, /*test=*/true));
  return run->Test(params_);
}

absl::StatusOr<train::TrainResult> NNModel::Train(
    train::Hyperparameters hyperparameters,
    const train::TrainCallbacks& callbacks) {
  hyperparameters.threads = config_.threads;
  ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                   PrepareRun(hyperparameters, /*test=*/false));
  ASSIGN_OR_RETURN(train::TrainResult result, run->Train(callbacks));
  for (const auto& [name, values] : result.state.best) {
    if (params_.count(name)) params_[name] = values;
  }
  ++params_version_;
  return result;
}

std::string NNModel::View(const TensorView& tensor) {
  std::string out = "[";
  for (size_t i = 0; i < tensor.values.size(); ++i) {
    if (i > 0) out += ", ";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", tensor.values[i]);
    out += buffer;
  }
  return StrCat(out, "] (", ir::DTypeName(tensor.dtype), " ",
                ir::ShapeToString(tensor.shape), ")");
}

}  // namespace webnnm
