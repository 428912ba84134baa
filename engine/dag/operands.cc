// References to tensors: layer results, block inputs, constants,
// parameters and literals.
#include "engine/base/strings.h"
#include "engine/dag/builder.h"
#include "engine/ir/constant_data.h"

namespace webnnm::dag {
namespace {

// The shape of a (nested) literal list; false when it is not rectangular.
bool LiteralShape(const lang::Value& value, std::vector<int64_t>& shape,
                  size_t depth = 0) {
  if (value.is_number()) return depth == shape.size();
  if (!value.is_list() || value.items.empty()) return false;
  if (depth == shape.size()) shape.push_back(value.items.size());
  if (shape[depth] != static_cast<int64_t>(value.items.size())) return false;
  for (const lang::Value& item : value.items) {
    if (!LiteralShape(item, shape, depth + 1)) return false;
  }
  return true;
}

void FlattenNumbers(const lang::Value& value,
                    std::vector<const lang::Value*>& out) {
  if (value.is_number()) {
    out.push_back(&value);
    return;
  }
  for (const lang::Value& item : value.items) FlattenNumbers(item, out);
}

}  // namespace

std::vector<ir::ValueId> DagBuilder::RefValues(const model::TensorRef& ref) {
  using Kind = model::TensorRef::Kind;
  switch (ref.kind) {
    case Kind::kLayer:
      if (layer_failed_[ref.layer]) return {};
      return layer_results_[ref.layer];
    case Kind::kSectionInput:
      return {section_inputs_[ref.section]};
    case Kind::kSection: {
      const model::Section& section = model_.sections[ref.section];
      if (section.layers.empty()) {
        if (section_inputs_[ref.section] == ir::kNoValue) return {};
        return {section_inputs_[ref.section]};
      }
      int last = section.layers.back();
      if (layer_failed_[last]) return {};
      return layer_results_[last];
    }
    case Kind::kConstant: {
      ir::ValueId v = ConstantValue(model_.FindConstant(ref.name));
      if (v == ir::kNoValue) return {};
      return {v};
    }
    case Kind::kParameter:
      return {ParameterValue(ref.name, ref.range, -1)};
    case Kind::kLiteral: {
      ir::ValueId v = LiteralValue(ref.literal, -1);
      if (v == ir::kNoValue) return {};
      return {v};
    }
  }
  return {};
}

ir::ValueId DagBuilder::ConstantValue(int index) {
  if (auto it = constants_.find(index); it != constants_.end()) {
    return it->second;
  }
  const model::Constant& constant = model_.constants[index];
  ir::TensorType type;
  type.dtype = constant.data_type;
  if (!constant.scalar) {
    for (const lang::Dim& dim : constant.shape.dims) {
      type.shape.push_back(*dim.size);
      if (constant.shape.named) type.names.push_back(dim.name);
    }
  }
  std::optional<int64_t> count = type.MinElementCount();
  if (!count || ir::ByteLength(type.dtype, *count) > limits_.max_tensor_bytes) {
    diagnostics_.Error(constant.range, StrCat("constant '", constant.name,
                                              "' is larger than the limit"));
    constants_[index] = ir::kNoValue;
    return ir::kNoValue;
  }
  auto data = std::make_shared<ir::ConstantData>();
  for (const lang::Value& v : constant.values) {
    absl::Status status =
        ir::AppendNumber(*data, type.dtype, v.number, v.integral, v.integer);
    if (!status.ok()) {
      diagnostics_.Error(v.range, StrCat("constant '", constant.name,
                                         "': ", status.message()));
      constants_[index] = ir::kNoValue;
      return ir::kNoValue;
    }
  }
  ir::Node node;
  node.kind = ir::NodeKind::kConstant;
  node.name = constant.name;
  node.range = constant.range;
  node.data = std::move(data);
  ir::NodeId id = graph_.AddNode(std::move(node), 1);
  ir::Value& value = graph_.value(graph_.output(id));
  value.type = std::move(type);
  value.typed = true;
  constants_[index] = graph_.output(id);
  return graph_.output(id);
}

ir::ValueId DagBuilder::ParameterValue(const std::string& name,
                                       SourceRange range, int layer) {
  if (auto it = parameters_.find(name); it != parameters_.end()) {
    return graph_.output(it->second);
  }
  ir::Node node;
  node.kind = ir::NodeKind::kParameter;
  node.name = name;
  node.range = range;
  node.layer = layer;
  ir::NodeId id = graph_.AddNode(std::move(node), 1);
  parameters_[name] = id;
  return graph_.output(id);
}

ir::ValueId DagBuilder::LiteralValue(const lang::Value& literal, int layer) {
  std::vector<int64_t> shape;
  if (!LiteralShape(literal, shape)) {
    diagnostics_.Error(literal.range,
                       literal.is_list() && literal.items.empty()
                           ? "an empty list is not a tensor"
                           : "a literal tensor must be numbers in a "
                             "rectangular nesting of lists");
    return ir::kNoValue;
  }
  ir::Node node;
  node.kind = ir::NodeKind::kConstant;
  node.range = literal.range;
  node.layer = layer;
  ir::NodeId id = graph_.AddNode(std::move(node), 1);
  ir::ValueId value = graph_.output(id);
  graph_.value(value).type.shape = shape;
  pending_literals_[value] = literal;
  return value;
}

bool DagBuilder::EncodeLiteral(ir::ValueId value, ir::DType type) {
  auto it = pending_literals_.find(value);
  if (it == pending_literals_.end()) return true;
  std::vector<const lang::Value*> numbers;
  FlattenNumbers(it->second, numbers);
  auto data = std::make_shared<ir::ConstantData>();
  for (const lang::Value* v : numbers) {
    absl::Status status =
        ir::AppendNumber(*data, type, v->number, v->integral, v->integer);
    if (!status.ok()) {
      diagnostics_.Error(v->range, std::string(status.message()));
      return false;
    }
  }
  ir::Value& v = graph_.value(value);
  graph_.node(v.producer).data = std::move(data);
  v.type.dtype = type;
  v.typed = true;
  pending_literals_.erase(it);
  return true;
}

bool DagBuilder::IsUnshapedParameter(ir::ValueId value) const {
  const ir::Value& v = graph_.value(value);
  return graph_.node(v.producer).kind == ir::NodeKind::kParameter && !v.typed;
}

}  // namespace webnnm::dag
