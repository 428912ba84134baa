#include "engine/train/feeder.h"

#include <algorithm>
#include <cstring>

#include "engine/base/float16.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/elements.h"
#include "engine/train/lower.h"
#include "engine/train/sequence.h"

namespace webnnm::train {

void WriteFloats(backends::Executable& exe, int input, const float* data,
                 size_t count) {
  std::span<std::byte> bytes = exe.input(input);
  const size_t n = std::min(bytes.size() / sizeof(float), count);
  // A step's scalars and masks: a call to memcpy costs more than the copy.
  if (n <= 32 && bytes.size() % sizeof(float) == 0) {
    float* to = reinterpret_cast<float*>(bytes.data());
    for (size_t i = 0; i < n; ++i) to[i] = data[i];
    return;
  }
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

bool OutputSequenced(const dag::Dag& dag, const std::string& name) {
  for (const dag::Endpoint& o : dag.outputs) {
    if (o.name != name) continue;
    return StepsOf(dag.graph.value(dag.graph.node(o.node).outputs[0]).type)
        .sequenced;
  }
  return false;
}

absl::StatusOr<std::vector<size_t>> MatchTargets(
    const Dataset& data, const std::vector<OutputSpec>& specs) {
  const std::vector<Targets>& targets = data.targets();
  std::vector<size_t> match;
  for (const OutputSpec& spec : specs) {
    if (specs.size() == 1 && targets.size() == 1) {
      match.push_back(0);
      continue;
    }
    size_t i = 0;
    while (i < targets.size() && targets[i].output != spec.name) ++i;
    if (i == targets.size()) {
      return absl::InvalidArgumentError(StrCat(
          "the dataset has no targets for the output '", spec.name, "'"));
    }
    match.push_back(i);
  }
  return match;
}

absl::StatusOr<std::vector<int>> MatchInputs(const dag::Dag& dag,
                                             const Dataset& data) {
  std::vector<int> match;
  for (const dag::Endpoint& input : dag.inputs) {
    if (dag.inputs.size() == 1 && data.more_inputs().empty()) {
      match.push_back(-1);
      continue;
    }
    if (input.name == data.first_input()) {
      match.push_back(-1);
      continue;
    }
    const std::vector<Features>& more = data.more_inputs();
    size_t k = 0;
    while (k < more.size() && more[k].input != input.name) ++k;
    if (k == more.size()) {
      return absl::InvalidArgumentError(StrCat(
          "the dataset has no features for the input '", input.name, "'"));
    }
    match.push_back(static_cast<int>(k));
  }
  return match;
}

Feeder::Feeder(const dag::Dag& dag, const Dataset& data,
               std::vector<OutputSpec> specs, int64_t batch, int64_t steps)
    : data_(data),
      batch_(batch),
      steps_(steps > 0 && data.ragged() ? std::min(steps, data.steps())
                                        : data.steps()) {
  absl::StatusOr<std::vector<int>> inputs = MatchInputs(dag, data);
  absl::StatusOr<std::vector<size_t>> match = MatchTargets(data, specs);
  match_ = !inputs.ok() ? inputs.status() : match.status();
  for (size_t i = 0; inputs.ok() && i < dag.inputs.size(); ++i) {
    Input in;
    in.name = dag.inputs[i].name;
    in.source = (*inputs)[i];
    in.width =
        in.source < 0 ? data.width() : data.more_inputs()[in.source].width;
    inputs_.push_back(std::move(in));
  }
  for (size_t k = 0; k < specs.size(); ++k) {
    Output o;
    o.spec = specs[k];
    o.targets = match.ok() ? (*match)[k] : 0;
    o.width = OutputWidth(dag, specs[k].name);
    outputs_.push_back(std::move(o));
  }
}

absl::Status Feeder::Bind(backends::Executable& exe) {
  if (!match_.ok()) return match_;
  mask_ = exe.FindInput("in:mask");
  if (mask_ < 0) return absl::InternalError("a graph lacks the mask");
  for (Output& o : outputs_) {
    o.input = exe.FindInput("target:" + o.spec.name);
    if (o.input < 0) {
      return absl::InternalError(
          StrCat("a graph lacks the target of '", o.spec.name, "'"));
    }
  }
  for (Input& in : inputs_) {
    in.exe_input = exe.FindInput(in.name);
    if (in.exe_input < 0) {
      return absl::InternalError(
          StrCat("a graph lacks the model input '", in.name, "'"));
    }
    const int64_t element =
        ir::RuntimeElementSize(exe.inputs()[in.exe_input].dtype);
    const int64_t size = static_cast<int64_t>(exe.input(in.exe_input).size());
    // A sequenced input of a batch padded to fewer steps than the dataset
    // takes the first steps_ of every sample's steps.
    const int64_t steps = std::max<int64_t>(1, data_.steps());
    in.fed = in.width;
    if (steps_ < steps && in.width % steps == 0 &&
        size == batch_ * (in.width / steps) * steps_ * element) {
      in.fed = in.width / steps * steps_;
    }
    if (size != batch_ * in.fed * element) {
      return absl::InvalidArgumentError(StrCat(
          "the model input '", in.name, "' takes ", size / element / batch_,
          " values per sample; the dataset's samples have ", in.width));
    }
    if (exe.inputs()[in.exe_input].dtype != ir::DType::kFloat32) {
      in.values.assign(batch_ * in.fed, 0.0f);
    }
  }
  for (Output& o : outputs_) {
    const Targets& t = data_.targets()[o.targets];
    // Ragged batches may be padded to fewer steps (their bucket).
    o.steps = !t.sequenced     ? 1
              : data_.ragged() ? std::min(t.steps, steps_)
                               : t.steps;
  }
  mask_values_.assign(batch_, 0.0f);
  if (data_.ragged()) {
    step_mask_ = exe.FindInput(kStepMaskInput);
    if (step_mask_ < 0) {
      return absl::InternalError(
          "a graph for ragged sequences lacks the "
          "step mask");
    }
    step_mask_values_.assign(steps_ * batch_, 0.0f);
  }
  return absl::OkStatus();
}

// How many rows ahead Fill asks the memory for a row.
constexpr int64_t kPrefetchRows = 4;
// Rows of up to this many floats are copied by a loop.
constexpr int64_t kShortRow = 32;

absl::Status Feeder::Fill(backends::Executable& exe,
                          const std::vector<int64_t>& samples, int64_t begin,
                          int64_t end) {
  if (end < 0 || end > static_cast<int64_t>(samples.size())) {
    end = static_cast<int64_t>(samples.size());
  }
  const int64_t rows = std::clamp<int64_t>(end - begin, 0, batch_);
  for (int64_t r = 0; r < batch_; ++r) mask_values_[r] = r < rows ? 1.0f : 0.0f;
  for (Input& in : inputs_) {
    const int64_t w = in.width, fed = in.fed;
    // float32 inputs are gathered straight into the executable's input;
    // others (integers, float16) through `values`, converted once.
    const bool direct = exe.inputs()[in.exe_input].dtype == ir::DType::kFloat32;
    float* out = direct
                     ? reinterpret_cast<float*>(exe.input(in.exe_input).data())
                     : in.values.data();
    auto row_of = [&](int64_t r) {
      const int64_t s = samples[begin + r];
      return in.source < 0
                 ? data_.features(s)
                 : data_.more_inputs()[in.source].values.data() + s * w;
    };
    for (int64_t r = 0; r < batch_; ++r) {
      float* row = out + r * fed;
      if (r >= rows) {
        std::fill(row, row + fed, 0.0f);
        continue;
      }
      // The rows are scattered over the dataset: ask for a later row's
      // first lines while this one is copied.
      if (r + kPrefetchRows < rows) {
        const char* ahead =
            reinterpret_cast<const char*>(row_of(r + kPrefetchRows));
        for (int64_t b = 0; b < std::min<int64_t>(fed * 4, 512); b += 64) {
          __builtin_prefetch(ahead + b);
        }
      }
      const float* from = row_of(r);
      if (fed <= kShortRow) {  // a call to memcpy costs more than the copy
        for (int64_t i = 0; i < fed; ++i) row[i] = from[i];
      } else {
        std::memcpy(row, from, fed * sizeof(float));
      }
    }
    // In the input's own type: integers (token ids, uint8 pixels) as
    // integers (CheckShapes saw that they are).
    if (!direct) {
      ir::WriteElements(exe.input(in.exe_input),
                        exe.inputs()[in.exe_input].dtype,
                        std::span<const float>(in.values));
    }
  }
  WriteFloats(exe, mask_, mask_values_.data(), mask_values_.size());
  if (step_mask_ >= 0) {  // [T, B, 1]: 1 for each row's real steps
    std::fill(step_mask_values_.begin(), step_mask_values_.end(), 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length =
          std::min(steps_, data_.lengths()[samples[begin + r]]);
      for (int64_t t = 0; t < length; ++t) {
        step_mask_values_[t * batch_ + r] = 1.0f;
      }
    }
    WriteFloats(exe, step_mask_, step_mask_values_.data(),
                step_mask_values_.size());
  }
  for (Output& o : outputs_) FillTargets(o, samples, begin, rows, exe);
  return absl::OkStatus();
}

std::vector<double> Feeder::Counts(const std::vector<int64_t>& samples,
                                   int64_t begin, int64_t end) const {
  if (end < 0 || end > static_cast<int64_t>(samples.size())) {
    end = static_cast<int64_t>(samples.size());
  }
  const int64_t rows = std::max<int64_t>(end - begin, 0);
  std::vector<double> counts;
  for (const Output& o : outputs_) {
    const Targets& t = data_.targets()[o.targets];
    if (!t.sequenced) {
      counts.push_back(static_cast<double>(rows));
      continue;
    }
    double steps = 0;
    for (int64_t r = 0; r < rows; ++r) {
      steps +=
          static_cast<double>(data_.RealSteps(samples[begin + r], o.steps));
    }
    counts.push_back(steps);
  }
  return counts;
}

// A row's targets are [steps, width] (steps 1 unless sequenced): a class
// index each step for SCE, else values — one-hot classes, a 0/1 class for
// one unit, probability labels as they are, or regression values. A
// ragged sample's padded steps stay 0.
void Feeder::FillTargets(Output& o, const std::vector<int64_t>& samples,
                         int64_t begin, int64_t rows,
                         backends::Executable& exe) {
  const Targets& t = data_.targets()[o.targets];
  const bool sparse = o.spec.loss == LossKind::kSparseCategoricalCrossEntropy;
  const int64_t per_row = o.steps * o.width;
  if (!sparse && !t.sequenced && t.classification && !t.probabilities() &&
      o.width > 1 && exe.inputs()[o.input].dtype == ir::DType::kFloat32) {
    // One-hot classes of one step a row (a classifier's usual targets):
    // written straight into the executable's input.
    float* values = reinterpret_cast<float*>(exe.input(o.input).data());
    std::fill_n(values, batch_ * per_row, 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      values[r * per_row + data_.label(samples[begin + r], o.targets)] = 1.0f;
    }
    return;
  }
  o.values.assign(sparse ? 0 : batch_ * per_row, 0.0f);
  o.labels.assign(sparse ? batch_ * o.steps : 0, 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t s = samples[begin + r];
    const int64_t real = t.sequenced ? data_.RealSteps(s, o.steps) : 1;
    for (int64_t step = 0; step < real; ++step) {
      const int64_t at = r * o.steps + step;  // the row's step
      if (t.probabilities()) {                // soft labels, as they are
        std::memcpy(o.values.data() + at * o.width, data_.target(s, o.targets),
                    o.width * 4);
      } else if (t.classification) {
        const int64_t c = data_.label(s, o.targets, step);
        if (sparse) {
          o.labels[at] = static_cast<int32_t>(c);
        } else if (o.width == 1) {
          o.values[at] = static_cast<float>(c);  // two classes: 0/1
        } else {
          o.values[at * o.width + c] = 1.0f;
        }
      } else {
        std::memcpy(o.values.data() + at * o.width,
                    data_.target(s, o.targets) + step * o.width, o.width * 4);
      }
    }
  }
  if (sparse) {
    std::memcpy(exe.input(o.input).data(), o.labels.data(),
                o.labels.size() * 4);
  } else {
    WriteValues(exe, o.input, o.values.data(), o.values.size());
  }
}

ClassRule ClassRuleOf(const dag::Dag& dag, const OutputSpec& spec) {
  ClassRule rule;
  rule.units = OutputWidth(dag, spec.name);
  const OutputActivation a = ActivationOf(dag, spec.name);
  rule.threshold = a == OutputActivation::kSigmoid ||
                           spec.loss == LossKind::kBinaryCrossEntropy
                       ? 0.5
                       : 0.0;
  if (spec.loss == LossKind::kHinge) rule.threshold = 0.0;
  return rule;
}

namespace {

// An integer input's values must be integers its type holds.
absl::Status CheckIntegers(const std::string& input, ir::DType dtype,
                           const float* values, int64_t samples,
                           int64_t width) {
  const double lo = ir::MinValue(dtype), hi = ir::MaxValue(dtype);
  for (int64_t k = 0; k < samples * width; ++k) {
    const double v = values[k];
    if (v == std::nearbyint(v) && v >= lo && v <= hi) continue;
    return absl::InvalidArgumentError(StrCat(
        "the model input '", input, "' takes ", ir::DTypeName(dtype),
        " values, but sample ", k / width + 1, " holds ", v, " at feature ",
        k % width + 1, " (integers from ", lo, " to ", hi, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckShapes(const dag::Dag& dag, const Dataset& data,
                         const std::vector<OutputSpec>& specs) {
  ASSIGN_OR_RETURN(std::vector<int> inputs, MatchInputs(dag, data));
  // A sequenced input takes any whole number of steps (SequenceLength
  // names the input otherwise).
  RETURN_IF_ERROR(SequenceLength(dag, data).status());
  for (size_t i = 0; i < dag.inputs.size(); ++i) {
    const dag::Endpoint& e = dag.inputs[i];
    const ir::TensorType& in =
        dag.graph.value(dag.graph.node(e.node).outputs[0]).type;
    const int64_t have_values =
        inputs[i] < 0 ? data.width() : data.more_inputs()[inputs[i]].width;
    if (!ir::IsFloat(in.dtype)) {
      const float* values = inputs[i] < 0
                                ? data.features(0)
                                : data.more_inputs()[inputs[i]].values.data();
      RETURN_IF_ERROR(
          CheckIntegers(e.name, in.dtype, values, data.count(), have_values));
    }
    if (StepsOf(in).sequenced) continue;
    int64_t width = 1;
    for (int64_t d : in.FeatureShape()) width *= d;
    if (width != have_values) {
      // A CSV's text columns count a feature a category.
      std::string encoded;
      const TextEncoding& text = data.text_encoding();
      if (inputs[i] < 0 && !text.columns.empty()) {
        encoded = StrCat(" (with its text columns one-hot: ",
                         DescribeTextEncoding(text), ")");
      }
      return absl::InvalidArgumentError(
          StrCat("the model input '", e.name, "' has shape ",
                 ir::ShapeToString(in.FeatureShape()), " (", width,
                 " values) but the dataset's samples have ", have_values,
                 " features", encoded,
                 "; webnnmctl init --dataset writes a model that fits"));
    }
  }
  ASSIGN_OR_RETURN(std::vector<size_t> match, MatchTargets(data, specs));
  for (size_t k = 0; k < specs.size(); ++k) {
    const OutputSpec& spec = specs[k];
    const Targets& t = data.targets()[match[k]];
    int64_t out_width = OutputWidth(dag, spec.name);
    const bool sequenced = OutputSequenced(dag, spec.name);
    if (sequenced != t.sequenced) {
      return absl::InvalidArgumentError(StrCat(
          "the output '", spec.name, "' ",
          sequenced ? "is a sequence (a label or values a step), but the "
                      "dataset gives one target a sample; per-step targets "
                      "come from a NumPy .npz array [N, T] or [N, T, units]"
                    : "takes one target a sample, but the dataset gives a "
                      "target a step"));
    }
    if (t.probabilities() &&
        spec.loss == LossKind::kSparseCategoricalCrossEntropy) {
      return absl::InvalidArgumentError(
          StrCat("the labels of '", spec.name,
                 "' are probabilities, but SCE takes "
                 "one class id a sample; CCE or KLD take probabilities"));
    }
    if (t.classification) {
      int64_t classes = static_cast<int64_t>(t.classes.size());
      bool binary = out_width == 1 && classes <= 2;
      if (!binary && out_width != classes) {
        return absl::InvalidArgumentError(
            StrCat("the dataset has ", classes, " classes but the output '",
                   spec.name, "' has ", out_width, " units"));
      }
    } else if (out_width != t.width) {
      return absl::InvalidArgumentError(StrCat(
          "the output '", spec.name, "' has ", out_width,
          " units but the dataset has ", t.width, " target values per sample"));
    }
    if (t.classification != IsClassification(spec.loss)) {
      return absl::InvalidArgumentError(StrCat(
          "the dataset's targets of '", spec.name, "' are ",
          t.classification ? "classes" : "regression targets", " but the loss ",
          LossAbbreviation(spec.loss), " takes ",
          IsClassification(spec.loss) ? "classes" : "regression targets"));
    }
  }
  return absl::OkStatus();
}

}  // namespace webnnm::train
