// Names: layer names per instance and globally, and what each operand
// name refers to (constant, layer, block or a new parameter).
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/model/builder.h"

namespace webnnm::model {

void ModelBuilder::RegisterName(const NameDecl& name, Layer& layer) {
  std::string global = name.name;
  if (name.in_template) {
    // Inside a template the name is the instance's; globally it gains a
    // counter (skip1, skip2, ...).
    scopes_[name.scope].layers[name.name] = layer.id;
    global = StrCat(name.name, ++name_counters_[name.name]);
  }
  if (model_.FindConstant(global) >= 0 || model_.FindSection(global) >= 0 ||
      blocks_.count(global)) {
    diagnostics_.Error(layer.range, StrCat("layer name '", global,
                                           "' is already a constant or "
                                           "block name"));
    return;
  }
  auto [it, inserted] = global_layers_.try_emplace(global, layer.id);
  if (!inserted) {
    LineColumn first =
        diagnostics_.file().Locate(model_.layers[it->second].range.begin);
    diagnostics_.Error(
        layer.range, StrCat("layer name '", global, "' is already used (line ",
                            first.line, ")"));
    return;
  }
  layer.names.push_back(global);
}

void ModelBuilder::ResolveReferences() {
  for (Layer& layer : model_.layers) {
    int scope = pending_scopes_[layer.id];
    for (Operand& operand : layer.operands) {
      if (operand.ref.kind != TensorRef::Kind::kParameter) continue;
      Resolve(layer, operand, scope);
    }
  }
  for (size_t i = 0; i < model_.constants.size(); ++i) {
    if (used_constants_.count(static_cast<int>(i))) continue;
    const Constant& c = model_.constants[i];
    diagnostics_.Warning(c.range,
                         StrCat("constant '", c.name, "' is never used"));
  }
}

void ModelBuilder::WarnParameterNamedLikeBlock(const Layer& layer,
                                               const Operand& operand,
                                               const Section& section) {
  // In a template, a name in a trainable operand's place is usually a new
  // parameter (add(b)); a block of that name takes its place instead.
  if (layer.context.empty() || layer.op->variadic() ||
      operand.slot >= static_cast<int>(layer.op->operands.size())) {
    return;
  }
  const ir::ParamRole role = layer.op->operands[operand.slot].param;
  if (role == ir::ParamRole::kNone || role == ir::ParamRole::kRunningMean ||
      role == ir::ParamRole::kRunningVariance) {
    return;
  }
  const LineColumn at = diagnostics_.file().Locate(section.range.begin);
  diagnostics_.Warning(
      operand.ref.range,
      StrCat("'", section.name, "' here is the block '", section.name,
             "' (line ", at.line, ")",
             section.input && section.layers.empty() ? ", an input," : "",
             " not a new trainable parameter of ", layer.op->name,
             ": a block's name wins over a parameter's; rename the block or "
             "the parameter (such as ",
             section.name,
             "_) if a parameter is "
             "meant",
             layer.context));
}

void ModelBuilder::Resolve(Layer& layer, Operand& operand, int scope) {
  TensorRef& ref = operand.ref;
  const std::string name = ref.name;
  if (int constant = model_.FindConstant(name); constant >= 0) {
    ref.kind = TensorRef::Kind::kConstant;
    used_constants_.insert(constant);
    return;
  }
  if (auto it = scopes_[scope].layers.find(name);
      it != scopes_[scope].layers.end()) {
    ref.kind = TensorRef::Kind::kLayer;
    ref.layer = it->second;
    return;
  }
  if (auto it = global_layers_.find(name); it != global_layers_.end()) {
    ref.kind = TensorRef::Kind::kLayer;
    ref.layer = it->second;
    return;
  }
  if (int section = model_.FindSection(name); section >= 0) {
    // Inside a block its own name means its input (its result would be a
    // cycle): residual(to=model).
    if (section == layer.section && model_.sections[section].input) {
      ref.kind = TensorRef::Kind::kSectionInput;
    } else {
      ref.kind = TensorRef::Kind::kSection;
    }
    ref.section = section;
    WarnParameterNamedLikeBlock(layer, operand, model_.sections[section]);
    return;
  }
  if (templates_.count(name)) {
    diagnostics_.Error(ref.range, StrCat("'", name,
                                         "' is a block without input; it "
                                         "is used as an operator, as in ",
                                         name, "()"));
    return;
  }
  ir::ParamRole role = ir::ParamRole::kNone;
  if (!layer.op->variadic() &&
      operand.slot < static_cast<int>(layer.op->operands.size())) {
    role = layer.op->operands[operand.slot].param;
  }
  if (role == ir::ParamRole::kNone || role == ir::ParamRole::kRunningMean ||
      role == ir::ParamRole::kRunningVariance) {
    std::vector<std::string> candidates;
    for (const Constant& c : model_.constants) candidates.push_back(c.name);
    for (const auto& [n, id] : global_layers_) candidates.push_back(n);
    for (const Section& s : model_.sections) candidates.push_back(s.name);
    std::string slot =
        layer.op->variadic() ? "inputs" : layer.op->operands[operand.slot].name;
    diagnostics_.Error(
        ref.range,
        StrCat("'", name, "' is not a constant, layer or block, and ",
               layer.op->name, "'s ", slot, " cannot be a trainable parameter",
               DidYouMean(name, candidates)));
    return;
  }
  // A trainable parameter: one per name per instance (ERRATA 10d).
  auto [it, inserted] = scopes_[scope].parameters.try_emplace(name);
  if (inserted) {
    bool digit = !name.empty() && name.back() >= '0' && name.back() <= '9';
    it->second = StrCat(name, digit ? "_" : "", ++parameter_counters_[name]);
    model_.parameters.push_back({it->second, ref.range});
  }
  ref.name = it->second;
}

}  // namespace webnnm::model
