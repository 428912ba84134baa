#include "engine/dag/builder.h"

#include <algorithm>
#include <queue>

#include "engine/base/strings.h"
#include "engine/ir/infer.h"
#include "engine/ir/rule_errors.h"

namespace webnnm::dag {
namespace {

// Runtime layout of a declared block tensor (ERRATA 10e): batch first, then
// sequence when the shape lists it, then the features; unnamed feature
// dimensions are `stem` (rank 1) or stem0, stem1, ...
ir::TensorType DeclaredType(const model::TensorDecl& decl,
                            const std::string& stem) {
  ir::TensorType type;
  type.dtype = decl.data_type.value_or(ir::DType::kFloat32);
  type.shape.push_back(ir::kBatchDim);
  type.names.push_back("batch");
  bool sequenced = false;
  int features = 0;
  for (const lang::Dim& dim : decl.shape.dims) {
    if (dim.name == "sequence") {
      sequenced = true;
    } else {
      ++features;
    }
  }
  if (sequenced) {
    type.shape.push_back(ir::kSequenceDim);
    type.names.push_back("sequence");
  }
  int index = 0;
  for (const lang::Dim& dim : decl.shape.dims) {
    if (dim.name == "sequence") continue;
    type.shape.push_back(*dim.size);
    if (!dim.name.empty()) {
      type.names.push_back(dim.name);
    } else {
      type.names.push_back(features == 1 ? stem : StrCat(stem, index));
    }
    ++index;
  }
  return type;
}

}  // namespace

DagBuilder::DagBuilder(const model::Model& model, Diagnostics& diagnostics,
                       const ir::Limits& limits)
    : model_(model),
      diagnostics_(diagnostics),
      limits_(limits),
      rewriter_(graph_, limits) {}

std::optional<Dag> DagBuilder::Run() {
  layer_results_.assign(model_.layers.size(), {});
  layer_failed_.assign(model_.layers.size(), false);
  pins_.assign(model_.layers.size(), std::nullopt);
  CreateInputs();
  PropagatePins();
  for (int id : LayerOrder()) BuildLayer(model_.layers[id]);
  ConnectOutputs();
  if (diagnostics_.has_errors()) return std::nullopt;
  Cull();
  if (diagnostics_.has_errors()) return std::nullopt;
  Decompose();
  if (diagnostics_.has_errors()) return std::nullopt;
  Cull();
  AnnotateInit();
  return Finish();
}

void DagBuilder::CreateInputs() {
  section_inputs_.assign(model_.sections.size(), ir::kNoValue);
  for (size_t i = 0; i < model_.sections.size(); ++i) {
    const model::Section& section = model_.sections[i];
    if (!section.input) continue;
    ir::Node node;
    node.kind = ir::NodeKind::kInput;
    node.name = section.name;
    node.range = section.range;
    ir::NodeId id = graph_.AddNode(std::move(node), 1);
    ir::Value& value = graph_.value(graph_.output(id));
    value.type = DeclaredType(*section.input, "features");
    value.typed = true;
    std::optional<int64_t> count = value.type.MinElementCount();
    if (!count ||
        ir::ByteLength(value.type.dtype, *count) > limits_.max_tensor_bytes) {
      diagnostics_.Error(
          section.input->shape.range,
          StrCat("input '", section.name, "' is larger than the limit of ",
                 limits_.max_tensor_bytes, " bytes per sample"));
    }
    section_inputs_[i] = graph_.output(id);
    inputs_.push_back({section.name, id, section.range});
  }
}

std::vector<int> DagBuilder::LayerOrder() {
  const int n = static_cast<int>(model_.layers.size());
  // Each layer waits for the layers its operands name.
  auto dependency = [&](const model::TensorRef& ref) -> int {
    if (ref.kind == model::TensorRef::Kind::kLayer) return ref.layer;
    if (ref.kind == model::TensorRef::Kind::kSection) {
      const model::Section& s = model_.sections[ref.section];
      return s.layers.empty() ? -1 : s.layers.back();
    }
    return -1;
  };
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> readers(n);
  for (const model::Layer& layer : model_.layers) {
    for (const model::Operand& operand : layer.operands) {
      int dep = dependency(operand.ref);
      if (dep < 0) continue;
      ++pending[layer.id];
      readers[dep].push_back(layer.id);
    }
  }
  // Among ready layers, the earliest instantiated goes first.
  std::vector<int> order;
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  while (!ready.empty()) {
    int id = ready.top();
    ready.pop();
    order.push_back(id);
    for (int reader : readers[id]) {
      if (--pending[reader] == 0) ready.push(reader);
    }
  }
  // A cycle needs a reference to a layer made later (or to the layer
  // itself); report those, not the layers merely waiting on them.
  for (const model::Layer& layer : model_.layers) {
    if (pending[layer.id] == 0) continue;
    layer_failed_[layer.id] = true;
    for (const model::Operand& operand : layer.operands) {
      int dep = dependency(operand.ref);
      if (dep >= layer.id && pending[dep] > 0) {
        diagnostics_.Error(operand.ref.range,
                           StrCat("'", operand.ref.name,
                                  "' is computed from this layer's own "
                                  "result: the model would have a cycle",
                                  layer.context));
      }
    }
  }
  return order;
}

bool DagBuilder::GatherOperands(const model::Layer& layer,
                                std::vector<ir::ValueId>& operands) {
  const ir::OpDef& op = *layer.op;
  if (!op.variadic()) operands.assign(op.operands.size(), ir::kNoValue);
  for (const model::Operand& operand : layer.operands) {
    std::vector<ir::ValueId> values = RefValues(operand.ref);
    if (values.empty()) return false;  // what it names failed: reported
    if (op.variadic()) {
      operands.insert(operands.end(), values.begin(), values.end());
      continue;
    }
    operands[operand.slot] = values.front();
    const ir::Node& producer = graph_.node(graph_.value(values[0]).producer);
    if (values.size() > 1 && producer.kind == ir::NodeKind::kOp &&
        producer.op->kind == ir::OpKind::kSplit) {
      diagnostics_.Warning(
          layer.range,
          StrCat(op.name, " reads only the first of the ", values.size(),
                 " pieces of the split at line ",
                 diagnostics_.file().Locate(producer.range.begin).line,
                 "; the others are left out (concat takes them all; slice "
                 "takes one piece)",
                 layer.context));
    }
  }
  return true;
}

void DagBuilder::BuildLayer(const model::Layer& layer) {
  const ir::OpDef& op = *layer.op;
  rewriter_.SetOrigin(layer.range, layer.id);
  auto fail = [&] { layer_failed_[layer.id] = true; };
  std::vector<ir::ValueId> operands;
  if (!GatherOperands(layer, operands)) return fail();
  bool widened = false;
  if (!ResolveTypes(layer, operands, widened)) return fail();
  if (operands.empty() || operands[0] == ir::kNoValue ||
      !graph_.value(operands[0]).typed) {
    return fail();  // an input-less first layer: reported by model::Build
  }
  std::optional<BoundAttrs> bound =
      BindAttrs(layer, graph_.value(operands[0]).type, diagnostics_);
  if (!bound) return fail();
  if (!bound->pre_permutation.empty()) {
    ir::Attrs perm;
    perm.Set("permutation", bound->pre_permutation);
    absl::StatusOr<ir::ValueId> t =
        rewriter_.Add(ir::OpKind::kTranspose, {operands[0]}, perm);
    if (!t.ok()) return ReportRuleError(layer, t.status()), fail();
    operands[0] = *t;
  }
  if (!bound->pre_reshape.empty()) {
    ir::Attrs shape;
    shape.Set("newShape", bound->pre_reshape);
    absl::StatusOr<ir::ValueId> r =
        rewriter_.Add(ir::OpKind::kReshape, {operands[0]}, shape);
    if (!r.ok()) return ReportRuleError(layer, r.status()), fail();
    operands[0] = *r;
  }
  if (op.category == ir::OpCategory::kRecurrent &&
      (op.kind == ir::OpKind::kGru || op.kind == ir::OpKind::kLstm)) {
    if (!AdaptRecurrentInput(layer, operands[0], bound->attrs)) return fail();
    if (!AdaptRecurrentStates(layer, operands, bound->attrs)) return fail();
  }
  if (!FillImplicitOperands(layer, bound->attrs, operands)) return fail();
  if (!SolveParameters(layer, bound->attrs, operands)) return fail();
  int global = 0;
  if (!AdaptFeatureIndexing(layer, operands, bound->attrs, global)) {
    return fail();
  }

  std::vector<const ir::TensorType*> types;
  for (ir::ValueId v : operands) {
    types.push_back(v == ir::kNoValue ? nullptr : &graph_.value(v).type);
  }
  absl::StatusOr<std::vector<ir::TensorType>> results =
      ir::InferOp(op, types, bound->attrs, limits_);
  if (!results.ok()) return ReportRuleError(layer, results.status()), fail();
  ir::NodeId id = graph_.AddOp(op, operands, bound->attrs,
                               static_cast<int>(results->size()));
  ir::Node& node = graph_.node(id);
  node.range = layer.range;
  node.layer = layer.id;
  std::vector<ir::ValueId> outputs = node.outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    ir::Value& value = graph_.value(outputs[i]);
    value.type = std::move((*results)[i]);
    if (i == 0 && !bound->result_names.empty() &&
        bound->result_names.size() == value.type.shape.size()) {
      value.type.names = bound->result_names;
    }
    ir::FillDefaultNames(value.type);
    value.typed = true;
  }
  if (op.kind == ir::OpKind::kGru || op.kind == ir::OpKind::kLstm) {
    std::optional<std::vector<ir::ValueId>> adapted =
        AdaptRecurrentOutputs(layer, outputs);
    if (!adapted) return fail();
    outputs = *adapted;
  }
  if (global > 0) {
    std::optional<ir::ValueId> back = GlobalFirst(layer, outputs[0], global);
    if (!back) return fail();
    outputs[0] = *back;
  }
  if (widened && graph_.value(outputs[0]).type.dtype == ir::DType::kFloat32) {
    // Computed in float32 for float16 data: the layer's result stays
    // float16 for the layers after it.
    outputs[0] = Cast(outputs[0], ir::DType::kFloat16);
    widened_.push_back(
        {graph_.value(outputs[0]).producer,
         {op.name, layer.range,
          static_cast<int>(
              diagnostics_.file().Locate(layer.range.begin).line)}});
  }
  if (!ApplyLayerPin(layer, graph_.value(outputs[0]).type)) return fail();
  layer_results_[layer.id] = outputs;
  result_types_[layer.id] = graph_.value(outputs[0]).type;
}

void DagBuilder::ReportRuleError(const model::Layer& layer,
                                 const absl::Status& status,
                                 const std::string& prefix) {
  std::string message = StrCat(prefix, status.message(), layer.context);
  if (std::optional<std::string> attr = ir::BlamedAttr(status)) {
    for (const model::Option& option : layer.options) {
      if (option.attr == *attr) {
        diagnostics_.Error(option.value.range, message);
        return;
      }
    }
  }
  if (std::optional<int> slot = ir::BlamedOperand(status)) {
    for (const model::Operand& operand : layer.operands) {
      if (operand.slot == *slot && operand.ref.range.end > 0 &&
          operand.ref.range != layer.range &&
          operand.ref.kind != model::TensorRef::Kind::kLayer) {
        diagnostics_.Error(operand.ref.range, message);
        return;
      }
    }
  }
  diagnostics_.Error(layer.op_range, message);
}

void DagBuilder::ConnectOutputs() {
  for (size_t i = 0; i < model_.sections.size(); ++i) {
    const model::Section& section = model_.sections[i];
    if (!section.output || section.layers.empty()) continue;
    int last = section.layers.back();
    if (layer_failed_[last] || layer_results_[last].empty()) continue;
    ir::ValueId value = layer_results_[last][0];
    const ir::TensorType& type = graph_.value(value).type;
    ir::TensorType declared = DeclaredType(*section.output, "labels");
    SourceRange at = section.output->shape.range;
    if (type.FeatureShape() != declared.FeatureShape()) {
      diagnostics_.Error(at, StrCat("'", section.name, ":output' declares ",
                                    ir::ShapeToString(declared.FeatureShape()),
                                    " but the last layer gives ",
                                    ir::ShapeToString(type.FeatureShape())));
      continue;
    }
    std::vector<int64_t> symbolic, declared_symbolic;
    for (int64_t d : type.shape) {
      if (ir::IsSymbolic(d)) symbolic.push_back(d);
    }
    if (std::count(symbolic.begin(), symbolic.end(), ir::kBatchDim) == 0) {
      // Every input has the batch dimension, so this result uses none.
      diagnostics_.Error(section.range, StrCat("output '", section.name,
                                               "' does not depend on any "
                                               "input"));
      continue;
    }
    for (int64_t d : declared.shape) {
      if (ir::IsSymbolic(d)) declared_symbolic.push_back(d);
    }
    if (symbolic != declared_symbolic) {
      bool has_sequence =
          std::count(symbolic.begin(), symbolic.end(), ir::kSequenceDim) > 0;
      diagnostics_.Error(
          at, has_sequence
                  ? StrCat("the last layer of '", section.name,
                           "' gives a sequence; declare it in the output "
                           "shape, as in {sequence, ...}")
                  : StrCat("'", section.name,
                           ":output' declares a sequence "
                           "but the last layer gives none"));
      continue;
    }
    if (section.output->data_type) {
      ir::DType want = *section.output->data_type;
      if (ir::Precision(type.dtype) > ir::Precision(want)) {
        diagnostics_.Error(
            section.output->data_type_range,
            StrCat("'", section.name, ":output' declares ", ir::DTypeName(want),
                   " but the last layer gives ", ir::DTypeName(type.dtype),
                   ", and an implicit cast never lowers precision; add "
                   "dataType=",
                   ir::DTypeName(want), " to the last layer"));
        continue;
      }
      if (want != type.dtype) {
        rewriter_.SetOrigin(section.output->data_type_range, last);
        value = Cast(value, want);
      }
    }
    ir::Node node;
    node.kind = ir::NodeKind::kOutput;
    node.name = section.name;
    node.range = section.range;
    node.operands = {value};
    ir::NodeId id = graph_.AddNode(std::move(node), 1);
    ir::Value& out = graph_.value(graph_.output(id));
    out.type = graph_.value(value).type;
    // The output's dimensions carry the declared names (labels, ...).
    std::vector<int> features = out.type.FeatureAxes();
    std::vector<std::string> names = declared.FeatureNames();
    for (size_t f = 0; f < features.size(); ++f) {
      out.type.names[features[f]] = names[f];
    }
    out.typed = true;
    outputs_.push_back({section.name, id, section.range});
  }
}

ir::ValueId DagBuilder::Cast(ir::ValueId value, ir::DType type) {
  ir::Attrs attrs;
  attrs.Set("type", std::string(ir::DTypeName(type)));
  absl::StatusOr<ir::ValueId> cast =
      rewriter_.Add(ir::OpKind::kCast, {value}, attrs);
  // A cast accepts every type and keeps the shape: it cannot fail.
  return cast.ok() ? *cast : value;
}

std::optional<Dag> Build(const model::Model& model, Diagnostics& diagnostics,
                         const ir::Limits& limits) {
  return DagBuilder(model, diagnostics, limits).Run();
}

}  // namespace webnnm::dag
