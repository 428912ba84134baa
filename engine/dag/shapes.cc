// Declared shapes (pins) and the shapes of parameters.
#include "engine/base/strings.h"
#include "engine/dag/builder.h"
#include "engine/ops/rules.h"

namespace webnnm::dag {
namespace {

// Whether every operand but the input broadcasts into the input, so that a
// shape-preserving layer's result has its input's shape.
bool OthersBroadcastIntoInput(const model::Layer& layer,
                              const model::Model& model) {
  if (layer.op->kind == ir::OpKind::kResidual) return true;  // same shapes
  for (const model::Operand& operand : layer.operands) {
    if (operand.slot == 0) continue;
    switch (operand.ref.kind) {
      case model::TensorRef::Kind::kParameter:
        break;
      case model::TensorRef::Kind::kLiteral:
        if (!operand.ref.literal.is_number()) return false;
        break;
      case model::TensorRef::Kind::kConstant: {
        int index = model.FindConstant(operand.ref.name);
        if (index < 0 || !model.constants[index].scalar) return false;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

void DagBuilder::PropagatePins() {
  for (const model::Layer& layer : model_.layers) {
    if (layer.shape) pins_[layer.id] = Pin::FromSpec(*layer.shape);
  }
  for (const model::Section& section : model_.sections) {
    if (!section.output || section.layers.empty()) continue;
    int last = section.layers.back();
    if (!pins_[last]) {
      pins_[last] = Pin::FromSpec(section.output->shape);
      pins_[last]->from_output = true;
    }
  }
  // Backwards through layers whose result has their input's shape.
  for (int id = static_cast<int>(model_.layers.size()) - 1; id >= 0; --id) {
    if (!pins_[id]) continue;
    const model::Layer& layer = model_.layers[id];
    if (!layer.op->shape_preserving ||
        !OthersBroadcastIntoInput(layer, model_)) {
      continue;
    }
    for (const model::Operand& operand : layer.operands) {
      if (operand.slot != 0 ||
          operand.ref.kind != model::TensorRef::Kind::kLayer ||
          operand.ref.layer >= id || pins_[operand.ref.layer]) {
        continue;
      }
      Pin inherited = *pins_[id];
      inherited.inherited = true;
      pins_[operand.ref.layer] = inherited;
    }
  }
}

bool DagBuilder::SolveParameters(const model::Layer& layer,
                                 const ir::Attrs& attrs,
                                 std::vector<ir::ValueId>& operands) {
  const ir::OpDef& op = *layer.op;
  std::vector<const ir::TensorType*> types;
  for (ir::ValueId v : operands) {
    bool known = v != ir::kNoValue && graph_.value(v).typed;
    types.push_back(known ? &graph_.value(v).type : nullptr);
  }
  std::optional<ir::TensorType> expected;
  if (pins_[layer.id] && types[0] != nullptr) {
    expected = ExpectedType(*pins_[layer.id], *types[0]);
  }
  for (size_t slot = 0; slot < operands.size(); ++slot) {
    ir::ValueId v = operands[slot];
    if (v == ir::kNoValue || !IsUnshapedParameter(v)) continue;
    const ir::OperandSpec& spec = op.operands[op.variadic() ? 0 : slot];
    ir::InferContext context{op, types, attrs, limits_};
    absl::StatusOr<ir::TensorType> shape;
    if (op.solve != nullptr) {
      shape = op.solve(context, expected ? &*expected : nullptr,
                       static_cast<int>(slot));
    } else if (spec.param == ir::ParamRole::kBias ||
               spec.param == ir::ParamRole::kScale ||
               spec.param == ir::ParamRole::kSlope) {
      shape = ops::PerChannelShape(*types[0]);
    } else {
      shape = absl::InvalidArgumentError(StrCat(op.name, " cannot infer it"));
    }
    ir::Node& node = graph_.node(graph_.value(v).producer);
    SourceRange at = node.range;
    for (const model::Operand& operand : layer.operands) {
      if (operand.slot == static_cast<int>(slot)) at = operand.ref.range;
    }
    if (!shape.ok()) {
      diagnostics_.Error(
          at, StrCat("cannot infer the shape of parameter '", node.name,
                     "' of ", op.name, ": ", shape.status().message(),
                     expected ? ""
                              : "; give this layer, or the block it belongs "
                                "to, a shape= option",
                     layer.context));
      return false;
    }
    ir::Value& value = graph_.value(v);
    ir::DType dtype = value.type.dtype;
    value.type = *std::move(shape);
    value.type.dtype = dtype;
    ir::FillDefaultNames(value.type);
    std::optional<int64_t> count = value.type.MinElementCount();
    bool ok = count.has_value();
    for (int64_t d : value.type.shape) {
      ok &= d >= 1 && d <= limits_.max_dimension;
    }
    if (!ok || ir::ByteLength(dtype, *count) > limits_.max_tensor_bytes) {
      diagnostics_.Error(at, StrCat("parameter '", node.name, "' would be ",
                                    ir::ShapeToString(value.type.shape),
                                    ", beyond the size limits", layer.context));
      return false;
    }
    value.typed = true;
    node.layer = layer.id;
    types[slot] = &value.type;
  }
  return true;
}

bool DagBuilder::ApplyLayerPin(const model::Layer& layer,
                               ir::TensorType& type) {
  if (!pins_[layer.id]) return true;
  const Pin& pin = *pins_[layer.id];
  std::optional<ir::TensorType> applied = ApplyPin(type, pin);
  if (!applied || applied->shape != type.shape) {
    if (pin.inherited || pin.from_output) return true;  // checked elsewhere
    diagnostics_.Error(pin.range, StrCat(layer.op->name, " gives ",
                                         ir::ShapeToString(type.FeatureShape()),
                                         " but shape= declares ",
                                         pin.ToString(), layer.context));
    return false;
  }
  if (!pin.names.empty()) type.names = applied->names;
  return true;
}

}  // namespace webnnm::dag
