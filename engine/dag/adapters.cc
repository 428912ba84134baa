// What the model language adds around some operations: the sequence layout
// of gru and lstm, zero cell states, and batch normalization's running
// statistics.
#include "engine/base/strings.h"
#include "engine/dag/builder.h"

namespace webnnm::dag {

bool DagBuilder::AdaptRecurrentInput(const model::Layer& layer,
                                     ir::ValueId& input, ir::Attrs& attrs) {
  const ir::TensorType type =
      graph_.value(input).type;  // a copy: Add grows the graph
  if (type.rank() != 3 || type.shape[0] != ir::kBatchDim) {
    diagnostics_.Error(layer.op_range,
                       StrCat(layer.op->name,
                              " runs over a sequence: its input must be "
                              "[batch, sequence, features], not ",
                              type.ToString(), layer.context));
    return false;
  }
  ir::Attrs perm;
  perm.Set("permutation", std::vector<int64_t>{1, 0, 2});
  absl::StatusOr<ir::ValueId> steps_first =
      rewriter_.Add(ir::OpKind::kTranspose, {input}, perm);
  if (!steps_first.ok()) {
    ReportRuleError(layer, steps_first.status());
    return false;
  }
  input = *steps_first;
  if (attrs.Has("steps") && type.shape[1] == ir::kSequenceDim) {
    // The specification's required steps= on a sequenced input declares
    // the length the data must have; the graphs take it from the data.
    const int64_t declared = attrs.GetInt("steps", 0);
    if (declared < 1) {
      diagnostics_.Error(layer.op_range,
                         StrCat(layer.op->name, " steps must be at least 1",
                                layer.context));
      return false;
    }
    if (declared_steps_ != 0 && declared_steps_ != declared) {
      diagnostics_.Error(layer.op_range,
                         StrCat(layer.op->name, " declares steps=", declared,
                                " but another recurrent layer steps=",
                                declared_steps_, layer.context));
      return false;
    }
    declared_steps_ = declared;
    attrs.Set("steps", type.shape[1]);
  }
  if (!attrs.Has("steps")) attrs.Set("steps", type.shape[1]);
  if (!attrs.Has("hiddenSize") && pins_[layer.id] &&
      !pins_[layer.id]->dims.empty()) {
    int64_t directions =
        attrs.GetString("direction", "forward") == "both" ? 2 : 1;
    int64_t size = pins_[layer.id]->dims.back();
    if (size % directions == 0) attrs.Set("hiddenSize", size / directions);
  }
  return true;
}

bool DagBuilder::AdaptRecurrentStates(const model::Layer& layer,
                                      std::vector<ir::ValueId>& operands,
                                      const ir::Attrs& attrs) {
  const ir::OpDef& op = *layer.op;
  const int64_t directions =
      attrs.GetString("direction", "forward") == "both" ? 2 : 1;
  for (size_t slot = 0; slot < op.operands.size() && slot < operands.size();
       ++slot) {
    const std::string_view name = op.operands[slot].name;
    if (name != "initialHiddenState" && name != "initialCellState") continue;
    if (operands[slot] == ir::kNoValue) continue;
    const ir::TensorType type = graph_.value(operands[slot]).type;
    if (type.rank() != 2 || type.shape[0] != ir::kBatchDim) continue;
    const int64_t width = type.shape[1];
    const int64_t hidden = attrs.GetInt("hiddenSize", width / directions);
    if (width != directions * hidden) {
      diagnostics_.Error(
          layer.op_range,
          StrCat("'", name, "' of ", op.name, " must have shape [batch, ",
                 directions * hidden, "] (directions x hiddenSize), not ",
                 type.ToString(), layer.context));
      return false;
    }
    // [batch, dirs * hidden] -> [batch, dirs, hidden] -> [dirs, batch,
    // hidden].
    ir::Attrs reshape, perm;
    reshape.Set("newShape",
                std::vector<int64_t>{ir::kBatchDim, directions, hidden});
    perm.Set("permutation", std::vector<int64_t>{1, 0, 2});
    absl::StatusOr<ir::ValueId> v =
        rewriter_.Add(ir::OpKind::kReshape, {operands[slot]}, reshape);
    if (v.ok()) v = rewriter_.Add(ir::OpKind::kTranspose, {*v}, perm);
    if (!v.ok()) {
      ReportRuleError(layer, v.status());
      return false;
    }
    operands[slot] = *v;
  }
  return true;
}

std::optional<std::vector<ir::ValueId>> DagBuilder::AdaptRecurrentOutputs(
    const model::Layer& layer, const std::vector<ir::ValueId>& outputs) {
  const ir::Node& node = graph_.node(graph_.value(outputs[0]).producer);
  bool sequence = node.attrs.GetBool("returnSequence", false);
  ir::ValueId value = sequence ? outputs.back() : outputs[0];
  const ir::TensorType& type = graph_.value(value).type;
  // [steps, dirs, batch, hidden] -> [batch, steps, dirs * hidden], or
  // [dirs, batch, hidden] -> [batch, dirs * hidden].
  std::vector<int64_t> perm = sequence ? std::vector<int64_t>{2, 0, 1, 3}
                                       : std::vector<int64_t>{1, 0, 2};
  int64_t directions = type.shape[sequence ? 1 : 0];
  int64_t width = directions * type.shape[type.rank() - 1];
  std::vector<int64_t> shape = {type.shape[sequence ? 2 : 1]};
  if (sequence) shape.push_back(type.shape[0]);
  shape.push_back(width);
  ir::Attrs transpose, reshape;
  transpose.Set("permutation", perm);
  reshape.Set("newShape", shape);
  absl::StatusOr<ir::ValueId> moved =
      rewriter_.Add(ir::OpKind::kTranspose, {value}, transpose);
  if (moved.ok())
    moved = rewriter_.Add(ir::OpKind::kReshape, {*moved}, reshape);
  if (!moved.ok()) {
    ReportRuleError(layer, moved.status());
    return std::nullopt;
  }
  ir::TensorType& result = graph_.value(*moved).type;
  result.names.back() = "hidden";
  return std::vector<ir::ValueId>{*moved};
}

bool DagBuilder::FillImplicitOperands(const model::Layer& layer,
                                      const ir::Attrs& attrs,
                                      std::vector<ir::ValueId>& operands) {
  const ir::OpDef& op = *layer.op;
  if (op.variadic()) return true;
  ir::DType dtype = graph_.value(operands[0]).type.dtype;
  for (size_t slot = 0; slot < op.operands.size(); ++slot) {
    const ir::OperandSpec& spec = op.operands[slot];
    if (operands[slot] != ir::kNoValue) continue;
    if (spec.zeros_if_absent) {
      std::vector<const ir::TensorType*> types;
      for (ir::ValueId v : operands) {
        bool known = v != ir::kNoValue && graph_.value(v).typed;
        types.push_back(known ? &graph_.value(v).type : nullptr);
      }
      ir::InferContext context{op, types, attrs, limits_};
      absl::StatusOr<ir::TensorType> shape =
          op.solve(context, nullptr, static_cast<int>(slot));
      if (!shape.ok()) {
        ReportRuleError(layer, shape.status());
        return false;
      }
      ir::Attrs expand;
      expand.Set("newShape", shape->shape);
      absl::StatusOr<ir::ValueId> zeros = rewriter_.Add(
          ir::OpKind::kExpand, {rewriter_.Scalar(0, dtype)}, expand);
      if (!zeros.ok()) {
        ReportRuleError(layer, zeros.status());
        return false;
      }
      operands[slot] = *zeros;
    } else if (spec.param == ir::ParamRole::kRunningMean ||
               spec.param == ir::ParamRole::kRunningVariance) {
      // Batch statistics kept during training (ERRATA 15b).
      bool mean = spec.param == ir::ParamRole::kRunningMean;
      if (mean) ++running_counter_;
      std::string name =
          StrCat(mean ? "runningMean" : "runningVariance", running_counter_);
      while (parameters_.count(name)) name += "_";
      ir::ValueId v = ParameterValue(name, layer.range, layer.id);
      ir::Node& node = graph_.node(graph_.value(v).producer);
      node.parameter.trainable = false;
      node.parameter.role = spec.param;
      graph_.value(v).type.dtype = dtype;
      operands[slot] = v;
    }
  }
  return true;
}

}  // namespace webnnm::dag
