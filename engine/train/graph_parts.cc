#include "engine/train/graph_parts.h"

#include <algorithm>
#include <set>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/op_def.h"
#include "engine/train/feeder.h"
#include "engine/train/lower.h"

namespace webnnm::train::internal {

using ir::DType;
using ir::OpKind;
using ir::TensorType;
using ir::ValueId;

namespace {

// The node that computes `value`, seen through a cast (a softmax
// computed in float32 for float16 data is cast back: dag.h).
const ir::Node& ActivationNode(const ir::Graph& graph, ValueId value) {
  const ir::Node& producer = graph.node(graph.value(value).producer);
  if (producer.kind == ir::NodeKind::kOp &&
      producer.op->kind == OpKind::kCast && !producer.operands.empty()) {
    return graph.node(graph.value(producer.operands[0]).producer);
  }
  return producer;
}

// A sequenced output [B, T, ...] is scored a step at a time: its values,
// logits and targets become rows [B·T, ...], and the mask says which of
// them hold data — the batch row's mask and, with ragged sequences, the
// step mask [T, B, 1] (kStepMaskInput).
absl::Status ScoreSteps(ir::GraphOps& ops, LossInputs& in) {
  const std::vector<int64_t> shape = ops.shape(in.output);
  const int64_t batch = shape[0], steps = shape[1];
  auto rows = [&](ValueId v) -> absl::StatusOr<ValueId> {
    std::vector<int64_t> s = ops.shape(v);
    s.erase(s.begin());
    s[0] = batch * steps;
    return ops.Reshape(v, s);
  };
  ASSIGN_OR_RETURN(in.output, rows(in.output));
  if (in.logits != ir::kNoValue) {
    ASSIGN_OR_RETURN(in.logits, rows(in.logits));
  }
  ASSIGN_OR_RETURN(in.target, rows(in.target));
  ASSIGN_OR_RETURN(ValueId row_mask, ops.Reshape(in.mask, {batch, 1}));
  ValueId mask;
  const ValueId step_mask = InputNamed(ops.graph(), kStepMaskInput);
  if (step_mask != ir::kNoValue) {
    ASSIGN_OR_RETURN(ValueId tb, ops.Reshape(step_mask, {steps, batch}));
    ASSIGN_OR_RETURN(ValueId bt, ops.Transpose(tb, {1, 0}));
    ASSIGN_OR_RETURN(mask, ops.Mul(bt, row_mask));
  } else {
    ASSIGN_OR_RETURN(mask, ops.Expand(row_mask, {batch, steps}));
  }
  ASSIGN_OR_RETURN(in.mask, ops.Reshape(mask, {batch * steps}));
  return absl::OkStatus();
}

// The loss inputs of one output: its value, its logits, target and mask.
absl::StatusOr<LossInputs> LossInputsOf(ir::GraphOps& ops, const dag::Dag& dag,
                                        const OutputSpec& spec, ValueId output,
                                        ValueId mask) {
  LossInputs in;
  in.output = output;
  in.mask = mask;
  in.activation = ActivationOf(dag, spec.name);
  const ir::Node& producer = ActivationNode(ops.graph(), output);
  if (producer.kind == ir::NodeKind::kOp &&
      ((in.activation == OutputActivation::kSoftmax &&
        producer.op->kind == OpKind::kSoftmax &&
        producer.attrs.GetInt("axis", ops.type(output).rank() - 1) ==
            ops.type(output).rank() - 1) ||
       (in.activation == OutputActivation::kSigmoid &&
        producer.op->kind == OpKind::kSigmoid))) {
    in.logits = producer.operands[0];
    // A softmax computed in float32 for a float16 output: the loss reads
    // its float32 result (the cast back feeds the model output only).
    in.output = producer.outputs[0];
  }
  const bool sequenced = OutputSequenced(dag, spec.name);
  in.target = ops.Input("target:" + spec.name,
                        TargetType(ops.type(output), spec.loss, sequenced));
  if (sequenced) RETURN_IF_ERROR(ScoreSteps(ops, in));
  return in;
}

}  // namespace

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


// The value of the graph's input `name` (kNoValue without one).
ValueId InputNamed(const ir::Graph& graph, const std::string& name) {
  for (const ir::Node& node : graph.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kInput && node.name == name) {
      return node.outputs[0];
    }
  }
  return ir::kNoValue;
}



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
  for (auto [name, value] : outputs) {
    const ir::Node& producer = ActivationNode(graph, value);
    if (producer.kind != ir::NodeKind::kOp ||
        producer.op->kind != OpKind::kSoftmax) {
      continue;
    }
    value = producer.outputs[0];  // float32 when computed so for float16
    if (ops.type(value).dtype != DType::kFloat32) continue;
    int last = ops.type(value).rank() - 1;
    ASSIGN_OR_RETURN(ValueId top,
                     ops.Reduce(OpKind::kReduceMax, value, {last}, false));
    ASSIGN_OR_RETURN(ValueId sure,
                     ops.CompareScalar(OpKind::kGreaterOrEqual, top, 0.95));
    ASSIGN_OR_RETURN(ValueId sure_f, ops.Cast(sure, DType::kFloat32));
    // A sequenced output's row: the share of its steps that are sure.
    std::vector<int> steps;
    for (int i = 1; i < ops.type(sure_f).rank(); ++i) steps.push_back(i);
    if (!steps.empty()) {
      ASSIGN_OR_RETURN(sure_f,
                       ops.Reduce(OpKind::kReduceMean, sure_f, steps, false));
    }
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

}  // namespace webnnm::train::internal
