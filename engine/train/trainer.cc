#include "engine/train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "engine/base/philox.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/expert.h"
#include "engine/train/freeze.h"
#include "engine/train/init.h"

namespace webnnm::train {
namespace {

using Clock = std::chrono::steady_clock;
using Params = std::map<std::string, std::vector<float>>;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

int64_t ElementCount(const ir::TensorType& type) {
  int64_t n = 1;
  for (int64_t d : type.shape) n *= d;
  return n;
}

// Every parameter of the DAG (trainable and running statistics) with its
// initial values for `seed`.
Params InitialParameters(const dag::Dag& dag, uint64_t seed,
                         const std::set<std::string>& scaled = {},
                         double scale = 1.0) {
  Params params;
  uint32_t index = 0;
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    int64_t count = ElementCount(dag.graph.value(node.outputs[0]).type);
    std::vector<float> values =
        InitialValues(node.parameter, count, seed, index++);
    if (scale != 1.0 && scaled.count(node.name)) {
      for (float& v : values) v = static_cast<float>(v * scale);
    }
    params[node.name] = std::move(values);
  }
  return params;
}

// The trainable weights read by the first heavy operations after an input
// (through movement and cast operations only).
std::set<std::string> FirstLayerWeights(const dag::Dag& dag) {
  const ir::Graph& g = dag.graph;
  std::set<std::string> names;
  std::vector<ir::ValueId> frontier;
  for (const dag::Endpoint& e : dag.inputs) {
    frontier.push_back(g.node(e.node).outputs[0]);
  }
  std::set<ir::ValueId> seen;
  while (!frontier.empty()) {
    ir::ValueId v = frontier.back();
    frontier.pop_back();
    if (!seen.insert(v).second) continue;
    for (ir::NodeId c : g.Consumers(v)) {
      const ir::Node& n = g.node(c);
      if (n.kind != ir::NodeKind::kOp) continue;
      if (n.op->category == ir::OpCategory::kMatrix ||
          n.op->category == ir::OpCategory::kConvolution) {
        for (ir::ValueId operand : n.operands) {
          if (operand == ir::kNoValue) continue;
          const ir::Node& p = g.node(g.value(operand).producer);
          if (p.kind == ir::NodeKind::kParameter &&
              (p.parameter.role == ir::ParamRole::kWeight ||
               p.parameter.role == ir::ParamRole::kGlorotWeight)) {
            names.insert(p.name);
          }
        }
      } else if (n.op->category == ir::OpCategory::kMovement ||
                 n.op->category == ir::OpCategory::kCast) {
        for (ir::ValueId out : n.outputs) frontier.push_back(out);
      }
    }
  }
  return names;
}

void WriteFloats(backends::Executable& exe, int input, const float* data,
                 size_t count) {
  std::span<std::byte> bytes = exe.input(input);
  std::memcpy(bytes.data(), data,
              std::min(bytes.size(), count * sizeof(float)));
}

float ReadScalar(const backends::Executable& exe, int output) {
  float v = 0;
  std::memcpy(&v, exe.output(output).data(), sizeof v);
  return v;
}

// Feeds batches of a subset to an executable's model input, target and
// mask.
class Feeder {
 public:
  Feeder(const Dataset& data, const OutputSpec& spec, int64_t batch,
         int64_t output_width)
      : data_(data), spec_(spec), batch_(batch), out_width_(output_width) {}

  absl::Status Bind(backends::Executable& exe, const std::string& input_name) {
    input_ = exe.FindInput(input_name);
    target_ = exe.FindInput("target:" + spec_.name);
    mask_ = exe.FindInput("mask");
    if (input_ < 0 || target_ < 0 || mask_ < 0) {
      return absl::InternalError("a graph lacks the data inputs");
    }
    int64_t need = batch_ * data_.width() * 4;
    if (static_cast<int64_t>(exe.input(input_).size()) != need) {
      return absl::InvalidArgumentError(StrCat(
          "the model input '", input_name, "' takes ",
          exe.input(input_).size() / 4 / batch_,
          " values per sample; the dataset's samples have ", data_.width()));
    }
    features_.assign(batch_ * data_.width(), 0.0f);
    mask_values_.assign(batch_, 0.0f);
    return absl::OkStatus();
  }

  // Fills rows from samples[begin, begin + batch) (fewer at the end).
  absl::Status Fill(backends::Executable& exe,
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
    WriteFloats(exe, input_, features_.data(), features_.size());
    if (sparse) {
      std::memcpy(exe.input(target_).data(), labels.data(), batch_ * 4);
    } else {
      WriteFloats(exe, target_, targets_.data(), targets_.size());
    }
    WriteFloats(exe, mask_, mask_values_.data(), mask_values_.size());
    return absl::OkStatus();
  }

 private:
  const Dataset& data_;
  OutputSpec spec_;
  int64_t batch_, out_width_;
  int input_ = -1, target_ = -1, mask_ = -1;
  std::vector<float> features_, targets_, mask_values_;
};

// An evaluation executable with its parameter inputs bound by name.
struct Evaluator {
  std::unique_ptr<backends::Executable> exe;
  std::unique_ptr<Feeder> feeder;
  OutputSpec spec;

  void SetParameters(const Params& params) {
    for (const auto& [name, values] : params) {
      int i = exe->FindInput(name);
      if (i >= 0) WriteFloats(*exe, i, values.data(), values.size());
    }
  }

  absl::StatusOr<Evaluation> Run(const Dataset& data, Subset subset,
                                 int64_t batch) {
    const std::vector<int64_t>& samples = data.subset(subset);
    int sum_out = exe->FindOutput("lossSum:" + spec.name);
    int count_out = exe->FindOutput("lossCount:" + spec.name);
    int correct_out = exe->FindOutput("correct:" + spec.name);
    double sum = 0, count = 0, correct = 0;
    for (size_t begin = 0; begin < samples.size(); begin += batch) {
      RETURN_IF_ERROR(feeder->Fill(*exe, samples, begin));
      RETURN_IF_ERROR(exe->Run());
      sum += ReadScalar(*exe, sum_out);
      count += ReadScalar(*exe, count_out);
      if (correct_out >= 0) correct += ReadScalar(*exe, correct_out);
    }
    Evaluation e;
    e.samples = static_cast<int64_t>(samples.size());
    e.loss = count > 0 ? sum / count : 0;
    if (correct_out >= 0 && e.samples > 0) {
      e.accuracy = correct / static_cast<double>(e.samples);
    }
    e.outputs[spec.name] = {e.loss, e.accuracy};
    return e;
  }
};

absl::StatusOr<Evaluator> MakeEvaluator(const dag::Dag& dag,
                                        const Dataset& data,
                                        const OutputSpec& spec, int64_t batch,
                                        int threads,
                                        backends::Backend& backend) {
  ASSIGN_OR_RETURN(ir::Graph graph, BuildEvaluationGraph(dag, batch, {spec}));
  backends::CompileOptions options;
  options.threads = threads;
  Evaluator e;
  ASSIGN_OR_RETURN(e.exe, backend.Compile(graph, options));
  e.spec = spec;
  int64_t out_width = 1;
  for (const dag::Endpoint& o : dag.outputs) {
    if (o.name != spec.name) continue;
    std::vector<int64_t> f =
        dag.graph.value(dag.graph.node(o.node).outputs[0]).type.FeatureShape();
    for (int64_t d : f) out_width *= d;
  }
  e.feeder = std::make_unique<Feeder>(data, e.spec, batch, out_width);
  RETURN_IF_ERROR(e.feeder->Bind(*e.exe, dag.inputs[0].name));
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
  const ir::TensorType& out =
      dag.graph.value(dag.graph.node(dag.outputs[0].node).outputs[0]).type;
  int64_t out_width = 1;
  for (int64_t d : out.FeatureShape()) out_width *= d;
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

double LearningRate(double max_lr, int64_t step, int64_t warmup_steps,
                    int64_t total_steps) {
  if (step < warmup_steps) {
    return max_lr * static_cast<double>(step + 1) /
           static_cast<double>(warmup_steps);
  }
  double span =
      static_cast<double>(std::max<int64_t>(1, total_steps - warmup_steps));
  double progress = static_cast<double>(step - warmup_steps) / span;
  return max_lr * 0.5 *
         (1.0 + std::cos(3.141592653589793 * std::min(1.0, progress)));
}

}  // namespace

absl::StatusOr<OutputSpec> ChooseLoss(const dag::Dag& dag,
                                      const std::string& output,
                                      const std::string& declared,
                                      Decision* decision) {
  OutputSpec spec;
  spec.name = output;
  if (!declared.empty()) {
    std::optional<LossKind> loss = ParseLoss(declared);
    if (!loss) {
      return absl::InvalidArgumentError(
          StrCat("unknown loss '", declared, "'"));
    }
    spec.loss = *loss;
    if (decision) {
      *decision = {
          StrCat("loss ", LossAbbreviation(*loss), " for '", output, "'"),
          "declared by the model"};
    }
    return spec;
  }
  switch (ActivationOf(dag, output)) {
    case OutputActivation::kSoftmax:
    case OutputActivation::kLogSoftmax:
      spec.loss = LossKind::kCategoricalCrossEntropy;
      break;
    case OutputActivation::kSigmoid:
      spec.loss = LossKind::kBinaryCrossEntropy;
      break;
    default:
      spec.loss = LossKind::kMeanSquaredError;
      break;
  }
  if (decision) {
    *decision = {
        StrCat("loss ", LossAbbreviation(spec.loss), " for '", output, "'"),
        spec.loss == LossKind::kMeanSquaredError
            ? "the output has no softmax or sigmoid activation: regression"
            : StrCat("the output ends with ",
                     spec.loss == LossKind::kBinaryCrossEntropy ? "sigmoid"
                                                                : "softmax",
                     ", so it predicts probabilities")};
  }
  return spec;
}

absl::StatusOr<Evaluation> Test(const dag::Dag& dag, const Dataset& dataset,
                                const Params& parameters,
                                const Hyperparameters& hyper,
                                backends::Backend& backend) {
  if (dag.outputs.empty()) return absl::InvalidArgumentError("no outputs");
  ASSIGN_OR_RETURN(OutputSpec spec, ChooseLoss(dag, dag.outputs[0].name,
                                               dag.outputs[0].loss, nullptr));
  RETURN_IF_ERROR(CheckShapes(dag, dataset, spec));
  ASSIGN_OR_RETURN(Evaluator eval,
                   MakeEvaluator(dag, dataset, spec, hyper.batch_size,
                                 hyper.threads, backend));
  eval.SetParameters(parameters);
  return eval.Run(dataset, Subset::kTest, hyper.batch_size);
}

absl::StatusOr<TrainResult> Train(const dag::Dag& dag, const Dataset& data,
                                  const Hyperparameters& hyper_in,
                                  backends::Backend& backend,
                                  const TrainCallbacks& callbacks) {
  TrainResult result;
  auto decide = [&](Decision d) {
    if (callbacks.decision) callbacks.decision(d);
    result.decisions.push_back(std::move(d));
  };
  if (dag.outputs.empty() || dag.inputs.empty()) {
    return absl::InvalidArgumentError("the model needs an input and an output");
  }
  if (hyper_in.batch_size < 1 || hyper_in.epochs < 1) {
    return absl::InvalidArgumentError("batchSize and epochs must be positive");
  }
  Decision loss_decision;
  ASSIGN_OR_RETURN(OutputSpec spec,
                   ChooseLoss(dag, dag.outputs[0].name, dag.outputs[0].loss,
                              &loss_decision));
  spec.params.alpha = dag.outputs[0].alpha.value_or(spec.params.alpha);
  spec.params.gamma = dag.outputs[0].gamma.value_or(spec.params.gamma);
  spec.params.delta = dag.outputs[0].delta.value_or(spec.params.delta);
  decide(loss_decision);
  RETURN_IF_ERROR(CheckShapes(dag, data, spec));
  if (data.classification() != IsClassification(spec.loss)) {
    return absl::InvalidArgumentError(
        StrCat("the dataset was read as ",
               data.classification() ? "classes" : "regression targets",
               " but the loss ", LossAbbreviation(spec.loss), " takes ",
               IsClassification(spec.loss) ? "classes" : "regression targets"));
  }
  if (data.subset(Subset::kTraining).empty()) {
    return absl::InvalidArgumentError("the training subset is empty");
  }

  // The expert system resolves the 'auto' hyperparameters.
  DagProfile profile = Profile(dag);
  Advice advice = Advise(dag, profile, hyper_in, spec, FeatureRms(data));
  for (const Decision& d : advice.decisions) decide(d);
  for (const std::string& w : advice.warnings) {
    if (callbacks.warning) callbacks.warning(w);
    result.warnings.push_back(w);
  }
  const Hyperparameters& hyper = advice.resolved;

  // The step configuration.
  std::optional<OptimizerKind> kind = ParseOptimizer(hyper.optimizer);
  if (!kind) {
    return absl::InvalidArgumentError(
        StrCat("unknown optimizer '", hyper.optimizer,
               "'; expected lion, rlion, nesterov or sgdm"));
  }
  StepConfig config;
  config.batch = hyper.batch_size;
  config.outputs = {spec};
  config.optimizer = *kind;
  config.optimizer_params = DefaultOptimizerParams(*kind);
  OptimizerParams& op = config.optimizer_params;
  if (hyper.lr) op.lr = *hyper.lr;
  if (hyper.weight_decay) op.weight_decay = *hyper.weight_decay;
  if (hyper.momentum_factor) op.momentum = *hyper.momentum_factor;
  if (hyper.beta1) op.beta1 = *hyper.beta1;
  if (hyper.beta2) op.beta2 = *hyper.beta2;
  config.lrm = FreezeMultipliers(dag, hyper.freeze);
  if (hyper.freeze > 0) {
    int frozen = 0;
    for (const auto& [name, m] : config.lrm) frozen += m == 0;
    decide({StrCat("freeze ", frozen, " of ", config.lrm.size(),
                   " parameters; the others learn at multipliers by depth"),
            StrCat("freeze ", hyper.freeze,
                   ": multipliers sin(pi/2 (r - r0) / (1 - r0)) in 5 buckets "
                   "by each parameter's depth r")});
  }
  config.clip_alpha = hyper.clip_alpha;
  config.agc_lambda = hyper.agc_lambda;
  if (hyper.regularization == "L1" || hyper.regularization == "L1+L2") {
    config.lambda1 = hyper.lambda1;
  }
  if (hyper.regularization == "L2" || hyper.regularization == "L1+L2") {
    config.lambda2 = hyper.lambda2;
  }
  config.clipping = hyper.gradient_clipping == "global" ? Clipping::kGlobal
                    : hyper.gradient_clipping == "agc"  ? Clipping::kAgc
                                                        : Clipping::kOff;
  bool scaling = hyper.gradient_scaling == "on";

  ASSIGN_OR_RETURN(ir::Graph step_graph, BuildTrainingGraph(dag, config));
  backends::CompileOptions options;
  options.threads = hyper.threads;
  ASSIGN_OR_RETURN(std::unique_ptr<backends::Executable> step,
                   backend.Compile(step_graph, options));
  // Dropout's random numbers: one stream per step, keyed by the seed.
  step->SetRandomState(hyper.seed, 0);
  ASSIGN_OR_RETURN(
      Evaluator eval,
      MakeEvaluator(dag, data, spec, hyper.batch_size, hyper.threads, backend));
  int64_t out_width = 1;
  for (int64_t d :
       dag.graph.value(dag.graph.node(dag.outputs[0].node).outputs[0])
           .type.FeatureShape()) {
    out_width *= d;
  }
  Feeder feeder(data, spec, hyper.batch_size, out_width);
  RETURN_IF_ERROR(feeder.Bind(*step, dag.inputs[0].name));

  // Parameter and momentum bindings.
  struct Binding {
    std::string name;
    int in = -1, out = -1, m_in = -1, m_out = -1;
  };
  std::vector<Binding> bindings;
  for (const auto& [name, id] : TrainableParameters(dag)) {
    Binding b{name, step->FindInput(name), step->FindOutput("new:" + name),
              step->FindInput("momentum:" + name),
              step->FindOutput("newMomentum:" + name)};
    if (b.in < 0 || b.out < 0 || b.m_in < 0 || b.m_out < 0) {
      return absl::InternalError(StrCat("the training graph lacks ", name));
    }
    bindings.push_back(b);
  }
  int lr_in = step->FindInput("lr"), scale_in = step->FindInput("scale");
  int mu_in = step->FindInput("clipMu"),
      sigma_in = step->FindInput("clipSigma");
  int k_in = step->FindInput("clipK"), first_in = step->FindInput("clipFirst");
  int loss_out = step->FindOutput("loss"),
      finite_out = step->FindOutput("finite");
  int mu_out = step->FindOutput("clipMu"),
      sigma_out = step->FindOutput("clipSigma");

  // Scouting: every candidate starting point runs the scouting graph
  // (forward, loss, backward) on the first training batch; the health
  // score -10 |log10 gradient ratio| - 100 dead ratio - loss picks one.
  std::set<std::string> first_layer = FirstLayerWeights(dag);
  Params params =
      InitialParameters(dag, hyper.seed, first_layer, advice.input_init_scale);
  if (hyper.seeds > 1) {
    StepConfig scout_config = config;
    scout_config.scouting = true;
    ASSIGN_OR_RETURN(ir::Graph scout_graph,
                     BuildTrainingGraph(dag, scout_config));
    ASSIGN_OR_RETURN(std::unique_ptr<backends::Executable> scout,
                     backend.Compile(scout_graph, options));
    Feeder scout_feeder(data, spec, hyper.batch_size, out_width);
    RETURN_IF_ERROR(scout_feeder.Bind(*scout, dag.inputs[0].name));
    RETURN_IF_ERROR(
        scout_feeder.Fill(*scout, data.subset(Subset::kTraining), 0));
    float one = 1.0f;
    WriteFloats(*scout, scout->FindInput("scale"), &one, 1);
    // The gradient ratio compares the first and the last trainable weight.
    std::vector<std::string> weights;
    for (const auto& [name, id] : TrainableParameters(dag)) {
      ir::ParamRole role = dag.graph.node(id).parameter.role;
      if (role == ir::ParamRole::kWeight ||
          role == ir::ParamRole::kGlorotWeight) {
        weights.push_back(name);
      }
    }
    int first_norm =
        weights.empty() ? -1 : scout->FindOutput("gradNorm:" + weights.front());
    int last_norm =
        weights.empty() ? -1 : scout->FindOutput("gradNorm:" + weights.back());
    int scout_loss = scout->FindOutput("loss");
    int scout_dead = scout->FindOutput("deadRatio");
    double best = -std::numeric_limits<double>::infinity();
    int best_k = 0;
    double best_loss = 0, best_ratio = 1, best_dead = 0;
    for (int k = 0; k < hyper.seeds; ++k) {
      Params candidate = InitialParameters(
          dag, hyper.seed * 1000003ull + static_cast<uint64_t>(k), first_layer,
          advice.input_init_scale);
      for (const auto& [name, values] : candidate) {
        int i = scout->FindInput(name);
        if (i >= 0) WriteFloats(*scout, i, values.data(), values.size());
      }
      RETURN_IF_ERROR(scout->Run());
      double loss = ReadScalar(*scout, scout_loss);
      double dead = ReadScalar(*scout, scout_dead);
      double ratio = 1;
      if (first_norm >= 0 && last_norm >= 0) {
        ratio = ReadScalar(*scout, first_norm) /
                (ReadScalar(*scout, last_norm) + 1e-12);
      }
      double score =
          -10 * std::fabs(std::log10(ratio + 1e-9)) - 100 * dead - loss;
      if (std::isfinite(score) && score > best) {
        best = score;
        best_k = k;
        best_loss = loss;
        best_ratio = ratio;
        best_dead = dead;
        params = std::move(candidate);
      }
    }
    decide(
        {StrCat("start from scouting seed ", best_k, " of ", hyper.seeds),
         StrCat("the best health score on a first batch: loss ", best_loss,
                ", gradient ratio ", best_ratio, ", dead ratio ", best_dead)});
  }
  for (const Binding& b : bindings) {
    const std::vector<float>& v = params[b.name];
    WriteFloats(*step, b.in, v.data(), v.size());
    std::vector<float> zeros(v.size(), 0.0f);
    WriteFloats(*step, b.m_in, zeros.data(), zeros.size());
  }
  auto read_params = [&]() {
    Params current = params;
    for (const Binding& b : bindings) {
      auto bytes = step->input(b.in);
      std::vector<float>& v = current[b.name];
      std::memcpy(v.data(), bytes.data(), v.size() * 4);
    }
    return current;
  };

  // The loop.
  const std::vector<int64_t>& train = data.subset(Subset::kTraining);
  const int64_t steps_per_epoch =
      (static_cast<int64_t>(train.size()) + hyper.batch_size - 1) /
      hyper.batch_size;
  const int warmup = hyper.warmup_epochs > 0
                         ? hyper.warmup_epochs
                         : std::max(1, static_cast<int>(0.05 * hyper.epochs));
  const int64_t total_steps = steps_per_epoch * hyper.epochs;
  const int64_t warmup_steps =
      std::min<int64_t>(total_steps, warmup * steps_per_epoch);
  double scale = scaling ? hyper.scale : 1.0;
  int64_t clean_steps = 0, global_step = 0;
  float clip_mu = 0, clip_sigma = 0;
  bool clip_first = true;
  double best_loss = std::numeric_limits<double>::infinity();
  int since_best = 0;
  double train_seconds = 0;
  int64_t trained_samples = 0;
  std::vector<int64_t> order = train;
  for (int epoch = 1; epoch <= hyper.epochs; ++epoch) {
    // Seeded shuffle of the training samples for this epoch.
    for (int64_t i = static_cast<int64_t>(order.size()) - 1; i > 0; --i) {
      PhiloxBlock bits = Philox4x32(
          {static_cast<uint32_t>(i), static_cast<uint32_t>(epoch), 0x5eed, 0},
          hyper.seed);
      int64_t j = static_cast<int64_t>(bits[0] % static_cast<uint32_t>(i + 1));
      std::swap(order[i], order[j]);
    }
    double epoch_loss = 0;
    int64_t epoch_rows = 0;
    double lr = 0;
    Clock::time_point start = Clock::now();
    for (int64_t s = 0; s < steps_per_epoch; ++s, ++global_step) {
      int64_t begin = s * hyper.batch_size;
      RETURN_IF_ERROR(feeder.Fill(*step, order, begin));
      lr = LearningRate(op.lr, global_step, warmup_steps, total_steps);
      float scalars[6] = {static_cast<float>(lr),
                          static_cast<float>(scale),
                          clip_mu,
                          clip_sigma,
                          global_step < 15 ? 4.0f : 2.0f,
                          clip_first ? 1.0f : 0.0f};
      int inputs[6] = {lr_in, scale_in, mu_in, sigma_in, k_in, first_in};
      for (int i = 0; i < 6; ++i) WriteFloats(*step, inputs[i], &scalars[i], 1);
      RETURN_IF_ERROR(step->Run());
      bool finite = ReadScalar(*step, finite_out) > 0.5f;
      int64_t rows = std::min<int64_t>(
          hyper.batch_size, static_cast<int64_t>(order.size()) - begin);
      for (const Binding& b : bindings) {
        std::memcpy(step->input(b.in).data(), step->output(b.out).data(),
                    step->input(b.in).size());
        std::memcpy(step->input(b.m_in).data(), step->output(b.m_out).data(),
                    step->input(b.m_in).size());
      }
      if (finite) {
        epoch_loss += ReadScalar(*step, loss_out) * rows;
        epoch_rows += rows;
        clip_mu = ReadScalar(*step, mu_out);
        clip_sigma = ReadScalar(*step, sigma_out);
        clip_first = false;
        if (scaling && ++clean_steps >= hyper.growth_interval) {
          scale *= 2;
          clean_steps = 0;
        }
      } else if (scaling) {
        scale = std::max(1.0, scale / 2);
        clean_steps = 0;
      }
    }
    train_seconds += Seconds(Clock::now() - start);
    trained_samples += static_cast<int64_t>(order.size());
    EpochReport report;
    report.epoch = epoch;
    report.epochs = hyper.epochs;
    report.train_loss = epoch_rows > 0 ? epoch_loss / epoch_rows : NAN;
    report.lr = lr;
    report.samples_per_second =
        train_seconds > 0 ? trained_samples / train_seconds : 0;
    result.final_train_loss = report.train_loss;
    double score = report.train_loss;
    if (!data.subset(Subset::kValidation).empty()) {
      eval.SetParameters(read_params());
      ASSIGN_OR_RETURN(Evaluation v,
                       eval.Run(data, Subset::kValidation, hyper.batch_size));
      report.validation_loss = v.loss;
      score = v.loss;
    }
    result.epochs = epoch;
    if (callbacks.epoch) callbacks.epoch(report);
    if (score < best_loss) {
      best_loss = score;
      result.best_epoch = epoch;
      result.validation_loss = report.validation_loss;
      result.parameters = read_params();
      since_best = 0;
    } else if (++since_best >= hyper.patience) {
      decide(
          {StrCat("stop after epoch ", epoch),
           StrCat(hyper.patience, " epochs without improvement (patience)")});
      break;
    }
  }
  if (result.parameters.empty()) result.parameters = read_params();
  result.train_samples_per_second =
      train_seconds > 0 ? trained_samples / train_seconds : 0;
  if (!data.subset(Subset::kTest).empty()) {
    eval.SetParameters(result.parameters);
    ASSIGN_OR_RETURN(result.test,
                     eval.Run(data, Subset::kTest, hyper.batch_size));
  }
  return result;
}

}  // namespace webnnm::train
