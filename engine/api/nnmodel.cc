#include "engine/api/nnmodel.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/base/float16.h"
#include "engine/base/philox.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/init.h"
#include "engine/train/lower.h"
#include "engine/train/run.h"

namespace webnnm {
namespace {

template <typename T>
T Saturate(double v) {
  if (std::isnan(v)) return T(0);
  double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  double hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(std::nearbyint(v), lo, hi));
}

template <typename T>
void Put(std::byte* out, size_t i, T v) {
  std::memcpy(out + i * sizeof(T), &v, sizeof(T));
}

template <typename T>
double Get(const std::byte* in, size_t i) {
  T v;
  std::memcpy(&v, in + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

// Writes `values` into a tensor's storage of type `dtype` (integers
// rounded and saturated; int4/uint4 stored one per byte).
void WriteElements(std::span<std::byte> out, ir::DType dtype,
                   std::span<const double> values) {
  std::byte* p = out.data();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (dtype) {
      case ir::DType::kFloat32:
        Put<float>(p, i, static_cast<float>(v));
        break;
      case ir::DType::kFloat16:
        Put<uint16_t>(p, i, DoubleToHalf(v));
        break;
      case ir::DType::kInt32:
        Put<int32_t>(p, i, Saturate<int32_t>(v));
        break;
      case ir::DType::kUint32:
        Put<uint32_t>(p, i, Saturate<uint32_t>(v));
        break;
      case ir::DType::kInt64:
        Put<int64_t>(p, i, Saturate<int64_t>(v));
        break;
      case ir::DType::kUint64:
        Put<uint64_t>(p, i, Saturate<uint64_t>(v));
        break;
      case ir::DType::kInt8:
        Put<int8_t>(p, i, Saturate<int8_t>(v));
        break;
      case ir::DType::kUint8:
        Put<uint8_t>(p, i, Saturate<uint8_t>(v));
        break;
      case ir::DType::kInt4:
        Put<int8_t>(p, i,
                    static_cast<int8_t>(std::clamp(
                        static_cast<int>(Saturate<int8_t>(v)), -8, 7)));
        break;
      case ir::DType::kUint4:
        Put<uint8_t>(p, i,
                     static_cast<uint8_t>(std::clamp(
                         static_cast<int>(Saturate<uint8_t>(v)), 0, 15)));
        break;
    }
  }
}

std::vector<double> ReadElements(std::span<const std::byte> in, ir::DType dtype,
                                 size_t count) {
  std::vector<double> values(count);
  const std::byte* p = in.data();
  for (size_t i = 0; i < count; ++i) {
    switch (dtype) {
      case ir::DType::kFloat32:
        values[i] = Get<float>(p, i);
        break;
      case ir::DType::kFloat16: {
        uint16_t bits;
        std::memcpy(&bits, p + 2 * i, 2);
        values[i] = HalfToFloat(bits);
        break;
      }
      case ir::DType::kInt32:
        values[i] = Get<int32_t>(p, i);
        break;
      case ir::DType::kUint32:
        values[i] = Get<uint32_t>(p, i);
        break;
      case ir::DType::kInt64:
        values[i] = Get<int64_t>(p, i);
        break;
      case ir::DType::kUint64:
        values[i] = Get<uint64_t>(p, i);
        break;
      case ir::DType::kInt8:
      case ir::DType::kInt4:
        values[i] = Get<int8_t>(p, i);
        break;
      case ir::DType::kUint8:
      case ir::DType::kUint4:
        values[i] = Get<uint8_t>(p, i);
        break;
    }
  }
  return values;
}

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
                                                .float32_parameters = true}));
  backends::CompileOptions options;
  options.threads = model_->config_.threads;
  ASSIGN_OR_RETURN(exe_, model_->backend_->Compile(graph, options));
  for (size_t i = 0; i < exe_->inputs().size(); ++i) {
    std::span<std::byte> bytes = exe_->input(i);
    std::memset(bytes.data(), 0, bytes.size());
  }
  ran_ = false;
  return absl::OkStatus();
}

absl::Status Context::SetBatchSize(int64_t batch) {
  if (batch < 1) {
    return absl::InvalidArgumentError(
        StrCat("the batch size must be at least 1, not ", batch));
  }
  batch_ = batch;
  return Compile();
}

absl::Status Context::SetSequenceLength(int64_t steps) {
  if (steps < 1) {
    return absl::InvalidArgumentError(
        StrCat("the sequence length must be at least 1, not ", steps));
  }
  sequence_ = steps;
  return Compile();
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
  WriteElements(exe_->input(i), spec.dtype, data);
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
                    ReadElements(exe_->input(i), spec.dtype, Elements(spec))};
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
                    ReadElements(exe_->output(i), spec.dtype, Elements(spec))};
}

absl::Status NNModel::Run(Context& context) {
  if (context.model_ != this) {
    return absl::InvalidArgumentError("the context belongs to another model");
  }
  backends::Executable& exe = *context.exe_;
  for (const auto& [name, values] : params_) {
    int i = exe.FindInput(name);
    if (i < 0) continue;
    std::span<std::byte> bytes = exe.input(i);
    std::memcpy(bytes.data(), values.data(),
                std::min(bytes.size(), values.size() * sizeof(float)));
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
