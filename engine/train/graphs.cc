#include "engine/train/graphs.h"

#include <algorithm>
#include <utility>

#include "engine/autodiff/autodiff.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/graph_ops.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"
#include "engine/train/batch_statistics.h"
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

TensorType TargetType(const TensorType& output, LossKind loss) {
  if (loss == LossKind::kSparseCategoricalCrossEntropy) {
    return TensorType{.dtype = DType::kInt32, .shape = {output.shape[0]}};
  }
  TensorType t = output;
  t.names.clear();
  return t;
}

namespace {

// The model outputs of a lowered graph by block name.
std::map<std::string, ValueId> Outputs(const ir::Graph& graph) {
  std::map<std::string, ValueId> outputs;
  for (const ir::Node& node : graph.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kOutput) {
      outputs[node.name] = node.operands[0];
    }
  }
  return outputs;
}

TensorType Scalar32() { return TensorType{.dtype = DType::kFloat32}; }

// The loss inputs of one output: its value, its logits, target and mask.
absl::StatusOr<LossInputs> LossInputsOf(ir::GraphOps& ops, const dag::Dag& dag,
                                        const OutputSpec& spec, ValueId output,
                                        ValueId mask) {
  LossInputs in;
  in.output = output;
  in.mask = mask;
  in.activation = ActivationOf(dag, spec.name);
  const ir::Node& producer =
      ops.graph().node(ops.graph().value(output).producer);
  if (producer.kind == ir::NodeKind::kOp &&
      ((in.activation == OutputActivation::kSoftmax &&
        producer.op->kind == OpKind::kSoftmax &&
        producer.attrs.GetInt("axis", ops.type(output).rank() - 1) ==
            ops.type(output).rank() - 1) ||
       (in.activation == OutputActivation::kSigmoid &&
        producer.op->kind == OpKind::kSigmoid))) {
    in.logits = producer.operands[0];
  }
  in.target =
      ops.Input("target:" + spec.name, TargetType(ops.type(output), spec.loss));
  return in;
}

struct OutputLoss {
  LossInputs inputs;
  LossValue loss;
};

// The loss of the output `spec` names.
absl::StatusOr<OutputLoss> LossOf(ir::GraphOps& ops, const dag::Dag& dag,
                                  const std::map<std::string, ValueId>& outputs,
                                  const OutputSpec& spec, ValueId mask) {
  auto it = outputs.find(spec.name);
  if (it == outputs.end()) {
    return absl::InvalidArgumentError(
        StrCat("the model has no output '", spec.name, "'"));
  }
  OutputLoss out;
  ASSIGN_OR_RETURN(out.inputs, LossInputsOf(ops, dag, spec, it->second, mask));
  ASSIGN_OR_RETURN(out.loss,
                   BuildLoss(ops, spec.loss, spec.params, out.inputs));
  return out;
}

// The axes a parameter's norm is taken over for AGC: all but its output
// units' axis (none for vectors: each element is a unit).
std::vector<int> AgcAxes(const ir::Graph& graph, ValueId param) {
  int rank = graph.value(param).type.rank();
  if (rank <= 1) return {};
  int unit = rank - 1;
  for (ir::NodeId consumer : graph.Consumers(param)) {
    const ir::Node& n = graph.node(consumer);
    if (n.kind != ir::NodeKind::kOp) continue;
    if (n.op->kind == OpKind::kConv2d) {
      std::string layout = n.attrs.GetString("filterLayout", "oihw");
      unit = static_cast<int>(layout.find('o'));
    } else if (n.op->kind == OpKind::kConvTranspose2d) {
      std::string layout = n.attrs.GetString("filterLayout", "iohw");
      unit = static_cast<int>(layout.find('o'));
    } else if (n.op->kind == OpKind::kGemm && n.operands.size() > 1 &&
               n.operands[1] == param && n.attrs.GetBool("bTranspose", false)) {
      unit = 0;
    }
    break;
  }
  std::vector<int> axes;
  for (int i = 0; i < rank; ++i) {
    if (i != unit) axes.push_back(i);
  }
  return axes;
}

// Whether each value feeds, further on, an operation that reads a trainable
// weight: parameters read only by operations without such a successor
// belong to the final layer.
std::vector<bool> FeedsWeightedOps(const ir::Graph& graph) {
  std::vector<bool> feeds(graph.num_values(), false);
  auto reads_weight = [&](const ir::Node& n) {
    for (ValueId v : n.operands) {
      if (v == ir::kNoValue) continue;
      const ir::Node& p = graph.node(graph.value(v).producer);
      if (p.kind == ir::NodeKind::kParameter && p.parameter.trainable &&
          (p.parameter.role == ir::ParamRole::kWeight ||
           p.parameter.role == ir::ParamRole::kGlorotWeight)) {
        return true;
      }
    }
    return false;
  };
  absl::StatusOr<std::vector<ir::NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return feeds;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const ir::Node& n = graph.node(*it);
    if (n.kind != ir::NodeKind::kOp) continue;
    bool downstream = false;
    for (ValueId out : n.outputs) downstream |= feeds[out];
    bool mark = downstream || reads_weight(n);
    for (ValueId v : n.operands) {
      if (v != ir::kNoValue && mark) feeds[v] = true;
    }
  }
  return feeds;
}

// A parameter is in the final layer when none of its readers feeds a
// later weighted operation.
bool InFinalLayer(const ir::Graph& graph, const std::vector<bool>& feeds,
                  ValueId param) {
  for (ir::NodeId consumer : graph.Consumers(param)) {
    for (ValueId out : graph.node(consumer).outputs) {
      if (feeds[out]) return false;
    }
  }
  return true;
}

// See StepConfig::scouting.
absl::StatusOr<ValueId> DeadRatio(ir::GraphOps& ops,
                                  const std::map<std::string, ValueId>& outputs,
                                  ValueId mask) {
  ir::Graph& graph = ops.graph();
  absl::StatusOr<std::vector<ir::NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return order.status();
  std::vector<int> depth(graph.num_values(), 0);
  ValueId deepest = ir::kNoValue;
  int deepest_depth = -1;
  for (ir::NodeId id : *order) {
    const ir::Node& n = graph.node(id);
    if (n.kind != ir::NodeKind::kOp) continue;
    int d = 0;
    for (ValueId v : n.operands) {
      if (v != ir::kNoValue) d = std::max(d, depth[v] + 1);
    }
    for (ValueId v : n.outputs) depth[v] = d;
    if (n.op->kind == OpKind::kRelu && d > deepest_depth &&
        ops.type(n.outputs[0]).dtype == DType::kFloat32) {
      deepest = n.outputs[0];
      deepest_depth = d;
    }
  }
  ValueId ratio = ops.Scalar(0, DType::kFloat32);
  if (deepest != ir::kNoValue) {
    std::vector<int64_t> shape = ops.shape(deepest);
    std::vector<int64_t> mask_shape(shape.size(), 1);
    mask_shape[0] = shape[0];
    ASSIGN_OR_RETURN(ValueId m, ops.Reshape(mask, mask_shape));
    ASSIGN_OR_RETURN(ValueId masked, ops.Mul(deepest, m));
    ASSIGN_OR_RETURN(ValueId active,
                     ops.Reduce(OpKind::kReduceMax, masked, {0}, false));
    ASSIGN_OR_RETURN(ValueId off,
                     ops.CompareScalar(OpKind::kLesserOrEqual, active, 0));
    ASSIGN_OR_RETURN(ValueId off_f, ops.Cast(off, DType::kFloat32));
    std::vector<int> axes;
    for (int i = 0; i < ops.type(off_f).rank(); ++i) axes.push_back(i);
    if (!axes.empty()) {
      ASSIGN_OR_RETURN(ratio,
                       ops.Reduce(OpKind::kReduceMean, off_f, axes, false));
    } else {
      ratio = off_f;
    }
  }
  for (const auto& [name, value] : outputs) {
    const ir::Node& producer = graph.node(graph.value(value).producer);
    if (producer.kind != ir::NodeKind::kOp ||
        producer.op->kind != OpKind::kSoftmax ||
        ops.type(value).dtype != DType::kFloat32) {
      continue;
    }
    int last = ops.type(value).rank() - 1;
    ASSIGN_OR_RETURN(ValueId top,
                     ops.Reduce(OpKind::kReduceMax, value, {last}, false));
    ASSIGN_OR_RETURN(ValueId sure,
                     ops.CompareScalar(OpKind::kGreaterOrEqual, top, 0.95));
    ASSIGN_OR_RETURN(ValueId sure_f, ops.Cast(sure, DType::kFloat32));
    std::vector<int64_t> rows = {
        ops.shape(sure_f).empty() ? 1 : ops.shape(sure_f)[0]};
    ASSIGN_OR_RETURN(ValueId per_row, ops.Reshape(sure_f, rows));
    ASSIGN_OR_RETURN(ValueId counted, ops.Mul(per_row, mask));
    ASSIGN_OR_RETURN(ValueId count, ops.SumAll(counted));
    ASSIGN_OR_RETURN(ValueId total, ops.SumAll(mask));
    ir::Attrs at_least_one;
    at_least_one.Set("minValue", 1.0);
    ASSIGN_OR_RETURN(ValueId divisor,
                     ops.Op(OpKind::kClamp, {total}, at_least_one));
    ASSIGN_OR_RETURN(ValueId share, ops.Div(count, divisor));
    ASSIGN_OR_RETURN(ratio, ops.Op(OpKind::kMax, {ratio, share}));
  }
  return ratio;
}

absl::StatusOr<ValueId> AgcClip(ir::GraphOps& ops, ValueId w, ValueId g,
                                const std::vector<int>& axes, double lambda) {
  auto norm = [&](ValueId v) -> absl::StatusOr<ValueId> {
    ASSIGN_OR_RETURN(ValueId square, ops.Mul(v, v));
    ValueId sum = square;
    if (!axes.empty()) {
      ASSIGN_OR_RETURN(sum, ops.Reduce(OpKind::kReduceSum, square, axes, true));
    }
    return ops.Unary(OpKind::kSqrt, sum);
  };
  ASSIGN_OR_RETURN(ValueId w_norm, norm(w));
  ASSIGN_OR_RETURN(ValueId g_norm, norm(g));
  ir::Attrs floor;
  floor.Set("minValue", 1e-3);
  ASSIGN_OR_RETURN(ValueId w_floor, ops.Op(OpKind::kClamp, {w_norm}, floor));
  ASSIGN_OR_RETURN(ValueId limit, ops.MulScalar(w_floor, lambda));
  ASSIGN_OR_RETURN(ValueId over, ops.Op(OpKind::kGreater, {g_norm, limit}));
  ASSIGN_OR_RETURN(ValueId safe_norm, ops.Where(over, g_norm, limit));
  ASSIGN_OR_RETURN(ValueId ratio, ops.Div(limit, safe_norm));
  ASSIGN_OR_RETURN(ValueId clipped, ops.Mul(g, ratio));
  return ops.Where(over, clipped, g);
}

}  // namespace

absl::StatusOr<ir::Graph> BuildTrainingGraph(const dag::Dag& dag,
                                             const StepConfig& config,
                                             const ir::Limits& limits) {
  ASSIGN_OR_RETURN(ir::Graph graph, Lower(dag,
                                          {.batch = config.batch,
                                           .training = true,
                                           .float32_parameters = true},
                                          limits));
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "training graph");
  std::map<std::string, ValueId> outputs = Outputs(graph);

  ValueId mask = ops.Input(
      "mask", TensorType{.dtype = DType::kFloat32, .shape = {config.batch}});
  std::vector<RunningUpdate> running;
  RETURN_IF_ERROR(UseBatchStatistics(graph, ops, mask, running));
  ValueId lr = ops.Input("lr", Scalar32());
  ValueId scale = ops.Input("scale", Scalar32());
  ValueId clip_mu = ops.Input("clipMu", Scalar32());
  ValueId clip_sigma = ops.Input("clipSigma", Scalar32());
  ValueId clip_k = ops.Input("clipK", Scalar32());
  ValueId clip_first = ops.Input("clipFirst", Scalar32());

  // Losses and their total.
  ValueId total = ir::kNoValue;
  std::vector<std::pair<std::string, ValueId>> weights;  // uncertainty s_i
  for (const OutputSpec& spec : config.outputs) {
    ASSIGN_OR_RETURN(OutputLoss out, LossOf(ops, dag, outputs, spec, mask));
    ASSIGN_OR_RETURN(ValueId mean, ops.Cast(out.loss.mean, DType::kFloat32));
    ops.Output("loss:" + spec.name, mean);
    ValueId term;
    if (config.uncertainty_weights) {
      ValueId s = ops.Input("uncertainty:" + spec.name, Scalar32());
      weights.push_back({"uncertainty:" + spec.name, s});
      ASSIGN_OR_RETURN(ValueId neg, ops.Neg(s));
      ASSIGN_OR_RETURN(ValueId precision, ops.Unary(OpKind::kExp, neg));
      ASSIGN_OR_RETURN(ValueId weighted, ops.Mul(precision, mean));
      ASSIGN_OR_RETURN(ValueId sum, ops.Add(weighted, s));
      ASSIGN_OR_RETURN(term, ops.MulScalar(sum, 0.5));
    } else if (spec.weight != 1.0) {
      ASSIGN_OR_RETURN(term, ops.MulScalar(mean, spec.weight));
    } else {
      term = mean;
    }
    if (total == ir::kNoValue) {
      total = term;
    } else {
      ASSIGN_OR_RETURN(total, ops.Add(total, term));
    }
  }
  if (total == ir::kNoValue) {
    return absl::InvalidArgumentError("training needs at least one output");
  }
  ops.Output("loss", total);

  // Backward, seeded with the loss scale.
  struct Trained {
    std::string name;
    ValueId value;
    bool weight;  // regularized (not biases, scales or s_i)
    bool final;   // read by the last layer (no AGC)
    double lrm;
  };
  std::vector<Trained> trained;
  const std::vector<bool> feeds = FeedsWeightedOps(graph);
  for (const ir::Node& node : graph.nodes()) {
    if (node.dead || node.kind != ir::NodeKind::kParameter) continue;
    if (!node.parameter.trainable) continue;
    auto lrm = config.lrm.find(node.name);
    bool weight = node.parameter.role == ir::ParamRole::kWeight ||
                  node.parameter.role == ir::ParamRole::kGlorotWeight;
    trained.push_back({node.name, node.outputs[0], weight, false,
                       lrm == config.lrm.end() ? 1.0 : lrm->second});
  }
  for (Trained& t : trained) t.final = InFinalLayer(graph, feeds, t.value);
  for (const auto& [name, s] : weights) {
    trained.push_back({name, s, false, true, 1.0});
  }
  std::vector<autodiff::Seed> seeds = {{total, scale}};
  std::vector<ValueId> wrt;
  for (const Trained& t : trained) wrt.push_back(t.value);
  ASSIGN_OR_RETURN(std::vector<ValueId> grads,
                   autodiff::Differentiate(graph, limits, seeds, wrt));
  for (size_t i = 0; i < trained.size(); ++i) trained[i].value = wrt[i];

  if (config.scouting) {
    ASSIGN_OR_RETURN(ValueId inverse, ops.Unary(OpKind::kReciprocal, scale));
    for (size_t i = 0; i < trained.size(); ++i) {
      ASSIGN_OR_RETURN(ValueId g32, ops.Cast(grads[i], DType::kFloat32));
      ASSIGN_OR_RETURN(ValueId unscaled, ops.Mul(g32, inverse));
      ASSIGN_OR_RETURN(ValueId square, ops.Mul(unscaled, unscaled));
      ASSIGN_OR_RETURN(ValueId sum, ops.SumAll(square));
      ASSIGN_OR_RETURN(ValueId norm, ops.Unary(OpKind::kSqrt, sum));
      ops.Output("gradNorm:" + trained[i].name, norm);
    }
    ASSIGN_OR_RETURN(ValueId dead, DeadRatio(ops, outputs, mask));
    ops.Output("deadRatio", dead);
    for (const RunningUpdate& r : running) {
      ops.Output("new:" + r.name, r.updated);
    }
    return graph;
  }

  // Unscale, regularize, and the squared global norm.
  ASSIGN_OR_RETURN(ValueId inverse_scale,
                   ops.Unary(OpKind::kReciprocal, scale));
  ValueId square_sum = ir::kNoValue;
  for (size_t i = 0; i < trained.size(); ++i) {
    ValueId w = trained[i].value;
    DType dtype = ops.type(w).dtype;
    ASSIGN_OR_RETURN(ValueId unscale, ops.Cast(inverse_scale, dtype));
    ASSIGN_OR_RETURN(grads[i], ops.Mul(grads[i], unscale));
    if (trained[i].weight && config.lambda1 > 0) {
      ASSIGN_OR_RETURN(ValueId sign, ops.Unary(OpKind::kSign, w));
      ASSIGN_OR_RETURN(ValueId l1, ops.MulScalar(sign, config.lambda1));
      ASSIGN_OR_RETURN(grads[i], ops.Add(grads[i], l1));
    }
    if (trained[i].weight && config.lambda2 > 0) {
      ASSIGN_OR_RETURN(ValueId l2, ops.MulScalar(w, config.lambda2));
      ASSIGN_OR_RETURN(grads[i], ops.Add(grads[i], l2));
    }
    ASSIGN_OR_RETURN(ValueId g32, ops.Cast(grads[i], DType::kFloat32));
    ASSIGN_OR_RETURN(ValueId square, ops.Mul(g32, g32));
    ASSIGN_OR_RETURN(ValueId sum, ops.SumAll(square));
    if (square_sum == ir::kNoValue) {
      square_sum = sum;
    } else {
      ASSIGN_OR_RETURN(square_sum, ops.Add(square_sum, sum));
    }
  }
  ASSIGN_OR_RETURN(ValueId nan, ops.Unary(OpKind::kIsNaN, square_sum));
  ASSIGN_OR_RETURN(ValueId inf, ops.Unary(OpKind::kIsInfinite, square_sum));
  ASSIGN_OR_RETURN(ValueId bad, ops.Op(OpKind::kLogicalOr, {nan, inf}));
  ASSIGN_OR_RETURN(ValueId finite, ops.Op(OpKind::kLogicalNot, {bad}));
  ASSIGN_OR_RETURN(ValueId finite_f, ops.Cast(finite, DType::kFloat32));
  ops.Output("finite", finite_f);
  // A skipped step (gradients not finite) keeps the running statistics, as
  // it keeps the parameters: the step's outputs are always carried.
  for (const RunningUpdate& r : running) {
    ASSIGN_OR_RETURN(ValueId kept, ops.Where(finite, r.updated, r.old));
    ops.Output("new:" + r.name, kept);
  }
  ASSIGN_OR_RETURN(ValueId norm, ops.Unary(OpKind::kSqrt, square_sum));
  ops.Output("gradNorm", norm);

  // Clipping.
  ValueId mu = clip_mu, sigma = clip_sigma;
  if (config.clipping == Clipping::kGlobal) {
    double a = config.clip_alpha;
    ASSIGN_OR_RETURN(ValueId first,
                     ops.CompareScalar(OpKind::kGreater, clip_first, 0.5));
    ASSIGN_OR_RETURN(ValueId previous, ops.Where(first, norm, clip_mu));
    ASSIGN_OR_RETURN(ValueId mu_a, ops.MulScalar(previous, a));
    ASSIGN_OR_RETURN(ValueId mu_b, ops.MulScalar(norm, 1 - a));
    ASSIGN_OR_RETURN(mu, ops.Add(mu_a, mu_b));
    ASSIGN_OR_RETURN(ValueId gap, ops.Sub(norm, mu));
    ASSIGN_OR_RETURN(ValueId deviation, ops.Unary(OpKind::kAbs, gap));
    ASSIGN_OR_RETURN(ValueId sigma_a, ops.MulScalar(clip_sigma, a));
    ASSIGN_OR_RETURN(ValueId sigma_b, ops.MulScalar(deviation, 1 - a));
    ASSIGN_OR_RETURN(sigma, ops.Add(sigma_a, sigma_b));
    ASSIGN_OR_RETURN(ValueId spread, ops.Mul(clip_k, sigma));
    ASSIGN_OR_RETURN(ValueId threshold, ops.Add(mu, spread));
    ASSIGN_OR_RETURN(ValueId over, ops.Op(OpKind::kGreater, {norm, threshold}));
    ASSIGN_OR_RETURN(ValueId padded, ops.AddScalar(norm, 1e-12));
    ASSIGN_OR_RETURN(ValueId ratio, ops.Div(threshold, padded));
    ASSIGN_OR_RETURN(ValueId factor,
                     ops.Where(over, ratio, ops.ScalarLike(1, ratio)));
    for (size_t i = 0; i < trained.size(); ++i) {
      ASSIGN_OR_RETURN(ValueId f, ops.Cast(factor, ops.type(grads[i]).dtype));
      ASSIGN_OR_RETURN(grads[i], ops.Mul(grads[i], f));
    }
  } else if (config.clipping == Clipping::kAgc) {
    for (size_t i = 0; i < trained.size(); ++i) {
      if (trained[i].final) continue;
      ASSIGN_OR_RETURN(grads[i], AgcClip(ops, trained[i].value, grads[i],
                                         AgcAxes(graph, trained[i].value),
                                         config.agc_lambda));
    }
  }
  ops.Output("clipMu", mu);
  ops.Output("clipSigma", sigma);

  // The optimizer.
  for (size_t i = 0; i < trained.size(); ++i) {
    const Trained& t = trained[i];
    ValueId m = ops.Input("momentum:" + t.name, ops.type(t.value));
    ASSIGN_OR_RETURN(ValueId step_lr, ops.Cast(lr, ops.type(t.value).dtype));
    ASSIGN_OR_RETURN(Update u,
                     BuildUpdate(ops, config.optimizer, config.optimizer_params,
                                 t.value, m, grads[i], step_lr, t.lrm, finite));
    ValueId updated = u.weight;
    if (t.name.starts_with("uncertainty:")) {
      // s_i stays within [kUncertaintyMin, kUncertaintyMax]: a task whose
      // loss reaches ~0 would otherwise drive s_i to -infinity and its
      // weight e^(-s_i)/2 (an effective learning rate) without bound.
      ir::Attrs bounds;
      bounds.Set("minValue", kUncertaintyMin);
      bounds.Set("maxValue", kUncertaintyMax);
      ASSIGN_OR_RETURN(updated, ops.Op(OpKind::kClamp, {u.weight}, bounds));
    }
    ops.Output("new:" + t.name, updated);
    ops.Output("newMomentum:" + t.name, u.momentum);
  }
  return graph;
}

absl::StatusOr<ir::Graph> BuildEvaluationGraph(
    const dag::Dag& dag, int64_t batch, const std::vector<OutputSpec>& specs,
    const ir::Limits& limits) {
  ASSIGN_OR_RETURN(
      ir::Graph graph,
      Lower(dag,
            {.batch = batch, .training = false, .float32_parameters = true},
            limits));
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "evaluation graph");
  std::map<std::string, ValueId> outputs = Outputs(graph);
  ValueId mask =
      ops.Input("mask", TensorType{.dtype = DType::kFloat32, .shape = {batch}});
  for (const OutputSpec& spec : specs) {
    ASSIGN_OR_RETURN(OutputLoss out, LossOf(ops, dag, outputs, spec, mask));
    const LossInputs& in = out.inputs;
    const LossValue& loss = out.loss;
    ASSIGN_OR_RETURN(ValueId sum, ops.Cast(loss.sum, DType::kFloat32));
    ASSIGN_OR_RETURN(ValueId count, ops.Cast(loss.count, DType::kFloat32));
    ops.Output("lossSum:" + spec.name, sum);
    ops.Output("lossCount:" + spec.name, count);
    if (IsClassification(spec.loss)) {
      ASSIGN_OR_RETURN(ValueId correct, BuildCorrectCount(ops, spec.loss, in));
      ops.Output("correct:" + spec.name, correct);
    }
  }
  return graph;
}

}  // namespace webnnm::train
