#include "engine/train/feeder.h"

#include <cstring>

#include "engine/base/float16.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::train {

void WriteFloats(backends::Executable& exe, int input, const float* data,
                 size_t count) {
  std::span<std::byte> bytes = exe.input(input);
  std::memcpy(bytes.data(), data,
              std::min(bytes.size(), count * sizeof(float)));
}

void WriteValues(backends::Executable& exe, int input, const float* data,
                 size_t count) {
  if (exe.inputs()[input].dtype != ir::DType::kFloat16) {
    WriteFloats(exe, input, data, count);
    return;
  }
  std::span<std::byte> bytes = exe.input(input);
  count = std::min(count, bytes.size() / sizeof(uint16_t));
  for (size_t i = 0; i < count; ++i) {
    uint16_t half = DoubleToHalf(data[i]);
    std::memcpy(bytes.data() + i * sizeof half, &half, sizeof half);
  }
}

float ReadScalar(const backends::Executable& exe, int output) {
  float v = 0;
  std::memcpy(&v, exe.output(output).data(), sizeof v);
  return v;
}

int64_t OutputWidth(const dag::Dag& dag, const std::string& name) {
  int64_t width = 1;
  for (const dag::Endpoint& o : dag.outputs) {
    if (o.name != name) continue;
    for (int64_t d : dag.graph.value(dag.graph.node(o.node).outputs[0])
                         .type.FeatureShape()) {
      width *= d;
    }
  }
  return width;
}

absl::Status Feeder::Bind(backends::Executable& exe,
                          const std::string& input_name) {
  input_ = exe.FindInput(input_name);
  target_ = exe.FindInput("target:" + spec_.name);
  mask_ = exe.FindInput("mask");
  if (input_ < 0 || target_ < 0 || mask_ < 0) {
    return absl::InternalError("a graph lacks the data inputs");
  }
  const int64_t element =
      exe.inputs()[input_].dtype == ir::DType::kFloat16 ? 2 : 4;
  int64_t need = batch_ * data_.width() * element;
  if (static_cast<int64_t>(exe.input(input_).size()) != need) {
    return absl::InvalidArgumentError(StrCat(
        "the model input '", input_name, "' takes ",
        exe.input(input_).size() / element / batch_,
        " values per sample; the dataset's samples have ", data_.width()));
  }
  features_.assign(batch_ * data_.width(), 0.0f);
  mask_values_.assign(batch_, 0.0f);
  return absl::OkStatus();
}

absl::Status Feeder::Fill(backends::Executable& exe,
                          const std::vector<int64_t>& samples, int64_t begin) {
  int64_t rows = std::min<int64_t>(batch_, samples.size() - begin);
  const int64_t w = data_.width();
  bool sparse = spec_.loss == LossKind::kSparseCategoricalCrossEntropy;
  targets_.assign(sparse ? batch_ : batch_ * out_width_, 0.0f);
  std::vector<int32_t> labels(batch_, 0);
  for (int64_t r = 0; r < batch_; ++r) {
    mask_values_[r] = r < rows ? 1.0f : 0.0f;
    if (r >= rows) {
      std::fill(features_.begin() + r * w, features_.begin() + (r + 1) * w,
                0.0f);
      continue;
    }
    int64_t s = samples[begin + r];
    std::memcpy(features_.data() + r * w, data_.features(s), w * 4);
    if (data_.classification()) {
      int64_t c = data_.label(s);
      if (sparse) {
        labels[r] = static_cast<int32_t>(c);
      } else if (out_width_ == 1) {
        targets_[r] = static_cast<float>(c);  // two classes: 0/1
      } else {
        targets_[r * out_width_ + c] = 1.0f;
      }
    } else {
      std::memcpy(targets_.data() + r * out_width_, data_.target(s),
                  out_width_ * 4);
    }
  }
  WriteValues(exe, input_, features_.data(), features_.size());
  if (sparse) {
    std::memcpy(exe.input(target_).data(), labels.data(), batch_ * 4);
  } else {
    WriteValues(exe, target_, targets_.data(), targets_.size());
  }
  WriteFloats(exe, mask_, mask_values_.data(), mask_values_.size());
  return absl::OkStatus();
}

absl::StatusOr<Evaluator> Evaluator::Make(const dag::Dag& dag,
                                          const Dataset& data,
                                          const OutputSpec& spec, int64_t batch,
                                          int threads,
                                          backends::Backend& backend) {
  ASSIGN_OR_RETURN(ir::Graph graph, BuildEvaluationGraph(dag, batch, {spec}));
  backends::CompileOptions options;
  options.threads = threads;
  Evaluator e;
  ASSIGN_OR_RETURN(e.exe_, backend.Compile(graph, options));
  e.spec_ = spec;
  e.batch_ = batch;
  e.feeder_ =
      std::make_unique<Feeder>(data, spec, batch, OutputWidth(dag, spec.name));
  RETURN_IF_ERROR(e.feeder_->Bind(*e.exe_, dag.inputs[0].name));
  return e;
}

void Evaluator::SetParameters(const Params& params) {
  for (const auto& [name, values] : params) {
    int i = exe_->FindInput(name);
    if (i >= 0) WriteFloats(*exe_, i, values.data(), values.size());
  }
}

absl::StatusOr<Evaluation> Evaluator::Run(const Dataset& data, Subset subset) {
  const std::vector<int64_t>& samples = data.subset(subset);
  int sum_out = exe_->FindOutput("lossSum:" + spec_.name);
  int count_out = exe_->FindOutput("lossCount:" + spec_.name);
  int correct_out = exe_->FindOutput("correct:" + spec_.name);
  double sum = 0, count = 0, correct = 0;
  for (size_t begin = 0; begin < samples.size(); begin += batch_) {
    RETURN_IF_ERROR(feeder_->Fill(*exe_, samples, begin));
    RETURN_IF_ERROR(exe_->Run());
    sum += ReadScalar(*exe_, sum_out);
    count += ReadScalar(*exe_, count_out);
    if (correct_out >= 0) correct += ReadScalar(*exe_, correct_out);
  }
  Evaluation e;
  e.samples = static_cast<int64_t>(samples.size());
  e.loss = count > 0 ? sum / count : 0;
  if (correct_out >= 0 && e.samples > 0) {
    e.accuracy = correct / static_cast<double>(e.samples);
  }
  e.outputs[spec_.name] = {e.loss, e.accuracy};
  return e;
}

absl::Status CheckShapes(const dag::Dag& dag, const Dataset& data,
                         const OutputSpec& spec) {
  if (dag.inputs.size() != 1 || dag.outputs.size() != 1) {
    return absl::InvalidArgumentError(StrCat(
        "a dataset file feeds models with one input and one output; "
        "this one has ",
        dag.inputs.size(), " inputs and ", dag.outputs.size(), " outputs"));
  }
  const ir::TensorType& in =
      dag.graph.value(dag.graph.node(dag.inputs[0].node).outputs[0]).type;
  int64_t width = 1;
  for (int64_t d : in.FeatureShape()) width *= d;
  if (width != data.width()) {
    return absl::InvalidArgumentError(StrCat(
        "the model input '", dag.inputs[0].name, "' has shape ",
        ir::ShapeToString(in.FeatureShape()), " (", width,
        " values) but the dataset's samples have ", data.width(), " features"));
  }
  int64_t out_width = OutputWidth(dag, spec.name);
  if (data.classification()) {
    int64_t classes = static_cast<int64_t>(data.classes().size());
    bool binary = out_width == 1 && classes <= 2;
    if (!binary && out_width != classes) {
      return absl::InvalidArgumentError(
          StrCat("the dataset has ", classes, " classes but the output '",
                 spec.name, "' has ", out_width, " units"));
    }
  } else if (out_width != data.target_width()) {
    return absl::InvalidArgumentError(
        StrCat("the output '", spec.name, "' has ", out_width,
               " units but the dataset has ", data.target_width(),
               " target values per sample"));
  }
  return absl::OkStatus();
}

}  // namespace webnnm::train
