#include "engine/train/graphs.h"

#include <algorithm>
#include <set>
#include <utility>

#include "engine/autodiff/autodiff.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/graph_ops.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"
#include "engine/train/batch_statistics.h"
#include "engine/train/feeder.h"
#include "engine/train/graph_parts.h"
#include "engine/train/lower.h"

namespace webnnm::train {

using ir::DType;
using ir::OpKind;
using ir::TensorType;
using ir::ValueId;

std::vector<std::pair<std::string, ir::NodeId>> TrainableParameters(
    const dag::Dag& dag) {
  std::vector<std::pair<std::string, ir::NodeId>> result;
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    if (node.parameter.trainable) result.push_back({node.name, id});
  }
  return result;
}

OutputActivation ActivationOf(const dag::Dag& dag, const std::string& output) {
  for (auto it = dag.layers.rbegin(); it != dag.layers.rend(); ++it) {
    if (it->section != output) continue;
    if (it->op == "softmax") return OutputActivation::kSoftmax;
    if (it->op == "sigmoid") return OutputActivation::kSigmoid;
    if (it->op == "logSoftmax") return OutputActivation::kLogSoftmax;
    return OutputActivation::kOther;
  }
  return OutputActivation::kNone;
}

TensorType TargetType(const TensorType& output, LossKind loss, bool sequenced) {
  if (loss == LossKind::kSparseCategoricalCrossEntropy) {
    std::vector<int64_t> shape = {output.shape[0]};
    if (sequenced) shape.push_back(output.shape[1]);
    return TensorType{.dtype = DType::kInt32, .shape = shape};
  }
  TensorType t = output;
  t.names.clear();
  return t;
}

// graph_parts.h
using internal::AgcAxes;
using internal::AgcClip;
using internal::DeadRatio;
using internal::FeedsWeightedOps;
using internal::InFinalLayer;
using internal::InputNamed;
using internal::LossOf;
using internal::OutputLoss;
using internal::Outputs;
using internal::Scalar32;

namespace {

// A trainable value of the step: a parameter or a learned s_i.
struct Trained {
  std::string name;
  ValueId value;
  bool weight;  // regularized (not biases, scales or s_i)
  bool final;   // read by the last layer (no AGC)
  double lrm;
};

// The training step's graph, built stage by stage over the lowered model:
// forward and losses, backward, then (training) unscaling, regularization
// and the overflow check, clipping and the optimizer, or (scouting) the
// health measures.
class StepBuilder {
 public:
  StepBuilder(ir::Graph& graph, const dag::Dag& dag, const StepConfig& config,
              const ir::Limits& limits)
      : graph_(graph),
        dag_(dag),
        config_(config),
        limits_(limits),
        rewriter_(graph, limits),
        ops_(rewriter_, "training graph"),
        outputs_(Outputs(graph)) {}

  absl::Status Inputs();
  absl::Status Losses();
  absl::Status Backward();
  absl::Status ScoutingOutputs();
  // kGradients: the gradients and batch statistics as outputs.
  absl::Status GradientOutputs();
  // kUpdate: the trained values with their summed gradients (inputs) in
  // place of the forward pass and backward, which go (dead).
  absl::Status SummedGradients();
  absl::Status UnscaleAndRegularize();
  absl::Status Clip();
  absl::Status Optimize();

 private:
  ir::Graph& graph_;
  const dag::Dag& dag_;
  const StepConfig& config_;
  const ir::Limits& limits_;
  ir::GraphRewriter rewriter_;
  ir::GraphOps ops_;
  std::map<std::string, ValueId> outputs_;
  ValueId mask_ = ir::kNoValue, lr_ = ir::kNoValue, scale_ = ir::kNoValue;
  ValueId clip_mu_ = ir::kNoValue, clip_sigma_ = ir::kNoValue;
  ValueId clip_k_ = ir::kNoValue, clip_first_ = ir::kNoValue;
  // Adam's bias corrections (adam and adamw only).
  ValueId adam_bias1_ = ir::kNoValue, adam_bias2_sqrt_ = ir::kNoValue;
  std::vector<RunningUpdate> running_;
  ValueId total_ = ir::kNoValue;
  std::vector<std::pair<std::string, ValueId>> weights_;  // uncertainty s_i
  std::vector<Trained> trained_;
  std::vector<ValueId> grads_;
  ValueId finite_ = ir::kNoValue, norm_ = ir::kNoValue;
  // The trainable parameters, final-layer flags and freeze multipliers.
  void CollectTrained();
};

absl::Status StepBuilder::Inputs() {
  mask_ = ops_.Input("in:mask", TensorType{.dtype = DType::kFloat32,
                                           .shape = {config_.batch}});
  RETURN_IF_ERROR(UseBatchStatistics(graph_, ops_, mask_, running_));
  lr_ = ops_.Input("in:lr", Scalar32());
  scale_ = ops_.Input("in:scale", Scalar32());
  clip_mu_ = ops_.Input("in:clipMu", Scalar32());
  clip_sigma_ = ops_.Input("in:clipSigma", Scalar32());
  clip_k_ = ops_.Input("in:clipK", Scalar32());
  clip_first_ = ops_.Input("in:clipFirst", Scalar32());
  if (IsAdam(config_.optimizer) && !config_.scouting &&
      config_.part != StepPart::kGradients) {
    adam_bias1_ = ops_.Input("in:adamBias1", Scalar32());
    adam_bias2_sqrt_ = ops_.Input("in:adamBias2Sqrt", Scalar32());
  }
  return absl::OkStatus();
}

// Each output's loss, weighted (fixed weights or learned s_i), and their
// total.
absl::Status StepBuilder::Losses() {
  for (const OutputSpec& spec : config_.outputs) {
    ASSIGN_OR_RETURN(OutputLoss out, LossOf(ops_, dag_, outputs_, spec, mask_));
    ASSIGN_OR_RETURN(ValueId mean, ops_.Cast(out.loss.mean, DType::kFloat32));
    ops_.Output("loss:" + spec.name, mean);
    if (IsClassification(spec.loss)) {  // the batch's right rows
      ASSIGN_OR_RETURN(ValueId correct,
                       BuildCorrectCount(ops_, spec.loss, out.inputs));
      ops_.Output("correct:" + spec.name, correct);
      ASSIGN_OR_RETURN(ValueId scored, ops_.SumAll(out.inputs.mask));
      ops_.Output("scored:" + spec.name, scored);
    }
    if (config_.scouting) {  // the error's moments (loss_tuning.h)
      ASSIGN_OR_RETURN(std::optional<ErrorMoments> moments,
                       BuildErrorMoments(ops_, spec.loss, out.inputs));
      if (moments) {
        for (int k = 0; k < 4; ++k) {
          ops_.Output(StrCat("errorPower", k + 1, ":", spec.name),
                      moments->sums[k]);
        }
        ops_.Output("errorCount:" + spec.name, moments->count);
      }
    }
    ValueId term;
    if (config_.uncertainty_weights) {
      ValueId s = ops_.Input("uncertainty:" + spec.name, Scalar32());
      weights_.push_back({"uncertainty:" + spec.name, s});
      ASSIGN_OR_RETURN(ValueId neg, ops_.Neg(s));
      ASSIGN_OR_RETURN(ValueId precision, ops_.Unary(OpKind::kExp, neg));
      ASSIGN_OR_RETURN(ValueId weighted, ops_.Mul(precision, mean));
      ASSIGN_OR_RETURN(ValueId sum, ops_.Add(weighted, s));
      ASSIGN_OR_RETURN(term, ops_.MulScalar(sum, 0.5));
    } else if (spec.weight != 1.0) {
      ASSIGN_OR_RETURN(term, ops_.MulScalar(mean, spec.weight));
    } else {
      term = mean;
    }
    if (config_.part == StepPart::kGradients) {
      ValueId share = ops_.Input("in:share:" + spec.name, Scalar32());
      ASSIGN_OR_RETURN(term, ops_.Mul(term, share));
    }
    if (total_ == ir::kNoValue) {
      total_ = term;
    } else {
      ASSIGN_OR_RETURN(total_, ops_.Add(total_, term));
    }
  }
  if (total_ == ir::kNoValue) {
    return absl::InvalidArgumentError("training needs at least one output");
  }
  ops_.Output("loss", total_);
  return absl::OkStatus();
}

void StepBuilder::CollectTrained() {
  const std::vector<bool> feeds = FeedsWeightedOps(graph_);
  for (const ir::Node& node : graph_.nodes()) {
    if (node.dead || node.kind != ir::NodeKind::kParameter) continue;
    if (!node.parameter.trainable) continue;
    auto lrm = config_.lrm.find(node.name);
    bool weight = node.parameter.role == ir::ParamRole::kWeight ||
                  node.parameter.role == ir::ParamRole::kGlorotWeight;
    trained_.push_back({node.name, node.outputs[0], weight, false,
                        lrm == config_.lrm.end() ? 1.0 : lrm->second});
  }
  for (Trained& t : trained_) t.final = InFinalLayer(graph_, feeds, t.value);
  for (const auto& [name, s] : weights_) {
    trained_.push_back({name, s, false, true, 1.0});
  }
}

// The gradients of every trainable value, seeded with the loss scale.
absl::Status StepBuilder::Backward() {
  CollectTrained();
  const ValueId seed =
      config_.loss_scaling ? scale_ : ops_.ScalarLike(1, scale_);
  std::vector<autodiff::Seed> seeds = {{total_, seed}};
  std::vector<ValueId> wrt;
  for (const Trained& t : trained_) wrt.push_back(t.value);
  ASSIGN_OR_RETURN(grads_,
                   autodiff::Differentiate(graph_, limits_, seeds, wrt));
  for (size_t i = 0; i < trained_.size(); ++i) trained_[i].value = wrt[i];
  return absl::OkStatus();
}

// Scouting: each gradient's unscaled norm and the dead ratio.
absl::Status StepBuilder::ScoutingOutputs() {
  ValueId inverse = ir::kNoValue;
  if (config_.loss_scaling) {
    ASSIGN_OR_RETURN(inverse, ops_.Unary(OpKind::kReciprocal, scale_));
  }
  for (size_t i = 0; i < trained_.size(); ++i) {
    ASSIGN_OR_RETURN(ValueId unscaled, ops_.Cast(grads_[i], DType::kFloat32));
    if (config_.loss_scaling) {
      ASSIGN_OR_RETURN(unscaled, ops_.Mul(unscaled, inverse));
    }
    ASSIGN_OR_RETURN(ValueId sum, ops_.SumSquaresAll(unscaled));
    ASSIGN_OR_RETURN(ValueId norm, ops_.Unary(OpKind::kSqrt, sum));
    ops_.Output("gradNorm:" + trained_[i].name, norm);
  }
  ASSIGN_OR_RETURN(ValueId dead, DeadRatio(ops_, outputs_, mask_));
  ops_.Output("deadRatio", dead);
  for (const RunningUpdate& r : running_) {
    ops_.Output("new:" + r.name, r.updated);
  }
  return absl::OkStatus();
}

absl::Status StepBuilder::GradientOutputs() {
  for (size_t i = 0; i < trained_.size(); ++i) {
    ops_.Output("grad:" + trained_[i].name, grads_[i]);
  }
  for (const RunningUpdate& r : running_) {
    ops_.Output("batchStat:" + r.name, r.updated);
  }
  return absl::OkStatus();
}

absl::Status StepBuilder::SummedGradients() {
  if (config_.uncertainty_weights) {
    for (const OutputSpec& spec : config_.outputs) {
      weights_.push_back({"uncertainty:" + spec.name,
                          ops_.Input("uncertainty:" + spec.name, Scalar32())});
    }
  }
  CollectTrained();  // reads the forward graph (which layer is final)
  // Everything of the forward pass goes: what follows reads only the
  // parameters, the step's scalars and the inputs added below.
  const std::set<ValueId> kept = {lr_,         scale_,          clip_mu_,
                                  clip_sigma_, clip_k_,         clip_first_,
                                  adam_bias1_, adam_bias2_sqrt_};
  std::set<ValueId> weights;
  for (const auto& [name, s] : weights_) weights.insert(s);
  for (ir::NodeId id = 0; id < graph_.num_nodes(); ++id) {
    ir::Node& node = graph_.node(id);
    if (node.dead || node.kind == ir::NodeKind::kParameter) continue;
    if (!node.outputs.empty() &&
        (kept.count(node.outputs[0]) || weights.count(node.outputs[0]))) {
      continue;
    }
    node.dead = true;
  }
  for (const Trained& t : trained_) {
    grads_.push_back(ops_.Input("grad:" + t.name, ops_.type(t.value)));
  }
  for (RunningUpdate& r : running_) {
    r.updated = ops_.Input("batchStat:" + r.name, ops_.type(r.old));
  }
  return absl::OkStatus();
}

// Unscale, regularize, the squared global norm and whether it is finite.
absl::Status StepBuilder::UnscaleAndRegularize() {
  ValueId inverse_scale = ir::kNoValue;
  if (config_.loss_scaling) {
    ASSIGN_OR_RETURN(inverse_scale, ops_.Unary(OpKind::kReciprocal, scale_));
  }
  ValueId square_sum = ir::kNoValue;
  for (size_t i = 0; i < trained_.size(); ++i) {
    ValueId w = trained_[i].value;
    DType dtype = ops_.type(w).dtype;
    if (config_.loss_scaling) {
      ASSIGN_OR_RETURN(ValueId unscale, ops_.Cast(inverse_scale, dtype));
      ASSIGN_OR_RETURN(grads_[i], ops_.Mul(grads_[i], unscale));
    }
    if (trained_[i].weight && config_.lambda1 > 0) {
      ASSIGN_OR_RETURN(ValueId sign, ops_.Unary(OpKind::kSign, w));
      ASSIGN_OR_RETURN(ValueId l1, ops_.MulScalar(sign, config_.lambda1));
      ASSIGN_OR_RETURN(grads_[i], ops_.Add(grads_[i], l1));
    }
    if (trained_[i].weight && config_.lambda2 > 0) {
      ASSIGN_OR_RETURN(ValueId l2, ops_.MulScalar(w, config_.lambda2));
      ASSIGN_OR_RETURN(grads_[i], ops_.Add(grads_[i], l2));
    }
    ASSIGN_OR_RETURN(ValueId g32, ops_.Cast(grads_[i], DType::kFloat32));
    ASSIGN_OR_RETURN(ValueId sum, ops_.SumSquaresAll(g32));
    if (square_sum == ir::kNoValue) {
      square_sum = sum;
    } else {
      ASSIGN_OR_RETURN(square_sum, ops_.Add(square_sum, sum));
    }
  }
  ASSIGN_OR_RETURN(ValueId nan, ops_.Unary(OpKind::kIsNaN, square_sum));
  ASSIGN_OR_RETURN(ValueId inf, ops_.Unary(OpKind::kIsInfinite, square_sum));
  ASSIGN_OR_RETURN(ValueId bad, ops_.Op(OpKind::kLogicalOr, {nan, inf}));
  ASSIGN_OR_RETURN(finite_, ops_.Op(OpKind::kLogicalNot, {bad}));
  ASSIGN_OR_RETURN(ValueId finite_f, ops_.Cast(finite_, DType::kFloat32));
  ops_.Output("finite", finite_f);
  // A skipped step (gradients not finite) keeps the running statistics, as
  // it keeps the parameters: the step's outputs are always carried.
  for (const RunningUpdate& r : running_) {
    ASSIGN_OR_RETURN(ValueId kept, ops_.Where(finite_, r.updated, r.old));
    ops_.Output("new:" + r.name, kept);
  }
  ASSIGN_OR_RETURN(norm_, ops_.Unary(OpKind::kSqrt, square_sum));
  ops_.Output("gradNorm", norm_);
  return absl::OkStatus();
}

// Global-norm clipping against the rolling mean and deviation, or AGC.
absl::Status StepBuilder::Clip() {
  ValueId mu = clip_mu_, sigma = clip_sigma_;
  if (config_.clipping == Clipping::kGlobal) {
    const double a = config_.clip_alpha;
    ASSIGN_OR_RETURN(ValueId first,
                     ops_.CompareScalar(OpKind::kGreater, clip_first_, 0.5));
    ASSIGN_OR_RETURN(ValueId previous, ops_.Where(first, norm_, clip_mu_));
    ASSIGN_OR_RETURN(ValueId mu_a, ops_.MulScalar(previous, a));
    ASSIGN_OR_RETURN(ValueId mu_b, ops_.MulScalar(norm_, 1 - a));
    ASSIGN_OR_RETURN(mu, ops_.Add(mu_a, mu_b));
    ASSIGN_OR_RETURN(ValueId gap, ops_.Sub(norm_, mu));
    ASSIGN_OR_RETURN(ValueId deviation, ops_.Unary(OpKind::kAbs, gap));
    ASSIGN_OR_RETURN(ValueId sigma_a, ops_.MulScalar(clip_sigma_, a));
    ASSIGN_OR_RETURN(ValueId sigma_b, ops_.MulScalar(deviation, 1 - a));
    ASSIGN_OR_RETURN(sigma, ops_.Add(sigma_a, sigma_b));
    ASSIGN_OR_RETURN(ValueId spread, ops_.Mul(clip_k_, sigma));
    ASSIGN_OR_RETURN(ValueId threshold, ops_.Add(mu, spread));
    ASSIGN_OR_RETURN(ValueId over,
                     ops_.Op(OpKind::kGreater, {norm_, threshold}));
    ASSIGN_OR_RETURN(ValueId padded, ops_.AddScalar(norm_, 1e-12));
    ASSIGN_OR_RETURN(ValueId ratio, ops_.Div(threshold, padded));
    ASSIGN_OR_RETURN(ValueId factor,
                     ops_.Where(over, ratio, ops_.ScalarLike(1, ratio)));
    for (size_t i = 0; i < trained_.size(); ++i) {
      ASSIGN_OR_RETURN(ValueId f,
                       ops_.Cast(factor, ops_.type(grads_[i]).dtype));
      ASSIGN_OR_RETURN(grads_[i], ops_.Mul(grads_[i], f));
    }
  } else if (config_.clipping == Clipping::kAgc) {
    for (size_t i = 0; i < trained_.size(); ++i) {
      if (trained_[i].final) continue;
      ASSIGN_OR_RETURN(grads_[i], AgcClip(ops_, trained_[i].value, grads_[i],
                                          AgcAxes(graph_, trained_[i].value),
                                          config_.agc_lambda));
    }
  }
  ops_.Output("clipMu", mu);
  ops_.Output("clipSigma", sigma);
  return absl::OkStatus();
}

// Each trainable value's update and its optimizer state's (MomentumSlots
// tensors of its shape, stacked on a first axis when more than one).
absl::Status StepBuilder::Optimize() {
  const int slots = MomentumSlots(config_.optimizer);
  for (size_t i = 0; i < trained_.size(); ++i) {
    const Trained& t = trained_[i];
    TensorType state_type = ops_.type(t.value);
    if (slots > 1) {
      state_type.shape.insert(state_type.shape.begin(), slots);
    }
    ValueId m = ops_.Input("momentum:" + t.name, state_type);
    UpdateScalars scalars{.adam_bias1 = adam_bias1_,
                          .adam_bias2_sqrt = adam_bias2_sqrt_};
    ASSIGN_OR_RETURN(scalars.lr, ops_.Cast(lr_, ops_.type(t.value).dtype));
    ASSIGN_OR_RETURN(
        Update u, BuildUpdate(ops_, config_.optimizer, config_.optimizer_params,
                              t.value, m, grads_[i], scalars, t.lrm, finite_));
    ValueId updated = u.weight;
    if (t.name.starts_with("uncertainty:")) {
      // s_i stays within [kUncertaintyMin, kUncertaintyMax]: a task whose
      // loss reaches ~0 would otherwise drive s_i to -infinity and its
      // weight e^(-s_i)/2 (an effective learning rate) without bound.
      ir::Attrs bounds;
      bounds.Set("minValue", kUncertaintyMin);
      bounds.Set("maxValue", kUncertaintyMax);
      ASSIGN_OR_RETURN(updated, ops_.Op(OpKind::kClamp, {u.weight}, bounds));
    }
    ops_.Output("new:" + t.name, updated);
    ops_.Output("newMomentum:" + t.name, u.momentum);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::Graph> BuildTrainingGraph(const dag::Dag& dag,
                                             const StepConfig& config,
                                             const ir::Limits& limits) {
  ASSIGN_OR_RETURN(ir::Graph graph, Lower(dag,
                                          {.batch = config.batch,
                                           .sequence = config.sequence,
                                           .training = true,
                                           .float32_parameters = true,
                                           .step_mask = config.step_mask},
                                          limits));
  StepBuilder step(graph, dag, config, limits);
  RETURN_IF_ERROR(step.Inputs());
  if (config.part == StepPart::kUpdate) {
    RETURN_IF_ERROR(step.SummedGradients());
  } else {
    RETURN_IF_ERROR(step.Losses());
    RETURN_IF_ERROR(step.Backward());
  }
  if (config.scouting) {
    RETURN_IF_ERROR(step.ScoutingOutputs());
    return graph;
  }
  if (config.part == StepPart::kGradients) {
    RETURN_IF_ERROR(step.GradientOutputs());
    return graph;
  }
  RETURN_IF_ERROR(step.UnscaleAndRegularize());
  RETURN_IF_ERROR(step.Clip());
  RETURN_IF_ERROR(step.Optimize());
  return graph;
}

absl::StatusOr<ir::Graph> BuildEvaluationGraph(
    const dag::Dag& dag, int64_t batch, int64_t sequence, bool step_mask,
    const std::vector<OutputSpec>& specs, const ir::Limits& limits) {
  ASSIGN_OR_RETURN(ir::Graph graph, Lower(dag,
                                          {.batch = batch,
                                           .sequence = sequence,
                                           .training = false,
                                           .float32_parameters = true,
                                           .step_mask = step_mask},
                                          limits));
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "evaluation graph");
  std::map<std::string, ValueId> outputs = Outputs(graph);
  ValueId mask = ops.Input(
      "in:mask", TensorType{.dtype = DType::kFloat32, .shape = {batch}});
  for (const OutputSpec& spec : specs) {
    ASSIGN_OR_RETURN(OutputLoss out, LossOf(ops, dag, outputs, spec, mask));
    const LossInputs& in = out.inputs;
    const LossValue& loss = out.loss;
    ASSIGN_OR_RETURN(ValueId sum, ops.Cast(loss.sum, DType::kFloat32));
    ASSIGN_OR_RETURN(ValueId count, ops.Cast(loss.count, DType::kFloat32));
    ops.Output("lossSum:" + spec.name, sum);
    ops.Output("lossCount:" + spec.name, count);
    // The output itself, for a test's metrics (metrics.h).
    ASSIGN_OR_RETURN(ValueId value, ops.Cast(in.output, DType::kFloat32));
    ops.Output("value:" + spec.name, value);
    if (IsClassification(spec.loss)) {
      ASSIGN_OR_RETURN(ValueId correct, BuildCorrectCount(ops, spec.loss, in));
      ops.Output("correct:" + spec.name, correct);
      ASSIGN_OR_RETURN(ValueId scored, ops.SumAll(in.mask));
      ops.Output("scored:" + spec.name, scored);
    }
  }
  return graph;
}

}  // namespace webnnm::train
