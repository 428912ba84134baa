// Expansion: sections run their layers; templates are instantiated where
// used, with their macros bound and shapes= repeated.
#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/model/binding.h"
#include "engine/model/build.h"
#include "engine/model/builder.h"
#include "engine/model/shape_spec.h"

namespace webnnm::model {

void ModelBuilder::ExpandSection(int index) {
  const Block& block = blocks_[section_order_[index]];
  Section section;
  section.name = block.name;
  section.range = block.range;
  if (const lang::BlockProperty* p = block.get(PropertyKind::kInput)) {
    section.input = Declare(*p, ShapeUse::kInput);
  }
  if (const lang::BlockProperty* p = block.get(PropertyKind::kOutput)) {
    section.output = Declare(*p, ShapeUse::kOutput);
  }
  if (const lang::BlockProperty* p = block.get(PropertyKind::kLoss)) {
    section.loss = p->value.text;
    section.loss_range = p->value.range;
    bool known = false;
    for (const std::string& loss : LossNames()) known |= loss == section.loss;
    if (!known) {
      diagnostics_.Error(
          p->value.range,
          StrCat("unknown loss '", section.loss, "'; expected one of ",
                 absl::StrJoin(LossNames(), ", "),
                 DidYouMean(section.loss, LossNames())));
    }
  }
  if (const lang::BlockProperty* p = block.get(PropertyKind::kAlpha)) {
    section.alpha = p->value.number;
  }
  if (const lang::BlockProperty* p = block.get(PropertyKind::kDelta)) {
    section.delta = p->value.number;
  }
  if (const lang::BlockProperty* p = block.get(PropertyKind::kGamma)) {
    section.gamma = p->value.number;
  }
  model_.sections.push_back(std::move(section));
  const lang::BlockProperty* layers = block.get(PropertyKind::kLayers);
  if (layers == nullptr) return;
  std::optional<TensorRef> input;
  if (model_.sections[index].input) {
    input = TensorRef{.kind = TensorRef::Kind::kSectionInput,
                      .section = index,
                      .range = block.range};
  }
  Expansion expansion{.section = index, .scope = NewScope()};
  ExpandBody(layers->layers, {}, expansion, input, Extras{});
}

std::optional<TensorDecl> ModelBuilder::Declare(
    const lang::BlockProperty& property, ShapeUse use) {
  TensorDecl decl;
  if (!property.data_type.empty()) {
    decl.data_type = ir::ParseDType(property.data_type);
    decl.data_type_range = property.data_type_range;
  }
  decl.shape = property.shape;
  if (!CheckShapeSpec(property.shape, use, diagnostics_)) return decl;
  return decl;
}

int ModelBuilder::NewScope() {
  scopes_.emplace_back();
  return static_cast<int>(scopes_.size()) - 1;
}

void ModelBuilder::ExpandBody(const std::vector<lang::Layer>& body,
                              const Bindings& bindings,
                              const Expansion& expansion,
                              std::optional<TensorRef>& prev,
                              const Extras& extras) {
  for (size_t i = 0; i < body.size(); ++i) {
    std::optional<lang::Layer> layer = Substitute(body[i], bindings);
    if (!layer) continue;
    bool last = i + 1 == body.size();
    ExpandLayer(*layer, expansion, prev, last ? extras : Extras{},
                bindings.count(body[i].op) > 0);
  }
}

std::optional<lang::Layer> ModelBuilder::Substitute(const lang::Layer& layer,
                                                    const Bindings& bindings) {
  lang::Layer out = layer;
  if (auto it = bindings.find(layer.op); it != bindings.end()) {
    if (!it->second.is_name()) {
      diagnostics_.Error(it->second.range,
                         StrCat("'", layer.op,
                                "' is used as an operator, so its value "
                                "must be an operator or block name"));
      return std::nullopt;
    }
    out.op = it->second.text;
    out.op_range = it->second.range;
  }
  for (lang::Argument& arg : out.args) SubstituteValue(arg.value, bindings);
  return out;
}

void ModelBuilder::SubstituteValue(lang::Value& value,
                                   const Bindings& bindings) {
  if (value.is_name()) {
    if (auto it = bindings.find(value.text); it != bindings.end()) {
      value = it->second;
    }
  } else if (value.is_list()) {
    for (lang::Value& item : value.items) SubstituteValue(item, bindings);
  } else if (value.is_map()) {
    for (lang::MapItem& item : value.entries) {
      SubstituteValue(item.value, bindings);
    }
  }
}

void ModelBuilder::ExpandLayer(const lang::Layer& layer,
                               const Expansion& expansion,
                               std::optional<TensorRef>& prev,
                               const Extras& outer, bool op_bound) {
  if (static_cast<int>(model_.layers.size()) >= kMaxLayers) {
    if (!too_many_reported_) {
      too_many_reported_ = true;
      diagnostics_.Error(layer.range, StrCat("the model expands to more "
                                             "than ",
                                             kMaxLayers, " layers"));
    }
    return;
  }
  bool is_template = templates_.count(layer.op) > 0;
  const ir::OpDef* op = is_template ? nullptr : ir::FindOp(layer.op);
  if (!is_template && op == nullptr) {
    ReportUnknownOperator(layer, expansion, op_bound);
    return;
  }
  LayerSpecials specials;
  for (const lang::Argument& arg : layer.args) {
    if (arg.key == "shape") specials.shape = &arg;
    if (arg.key == "shapes") specials.shapes = &arg;
    if (arg.key == "name") specials.name = &arg;
    if (arg.key == "dataType" &&
        (op == nullptr || op->FindAttr("type") == nullptr ||
         op->FindAttr("type")->alias == nullptr)) {
      specials.data_type = &arg;
    }
  }
  if (specials.shape && specials.shapes) {
    diagnostics_.Error(specials.shapes->key_range,
                       "give either shape= or shapes=, not both");
    return;
  }
  std::string name;
  if (specials.name) {
    if (!specials.name->value.is_name()) {
      diagnostics_.Error(specials.name->value.range,
                         "name= takes a name, such as name=stem");
    } else {
      name = specials.name->value.text;
    }
  }
  Extras own;
  if (specials.data_type) {
    const lang::Value& v = specials.data_type->value;
    std::optional<ir::DType> type =
        v.is_name() ? ir::ParseDType(v.text) : std::nullopt;
    if (!type) {
      diagnostics_.Error(
          v.range,
          StrCat("dataType= takes a data type (",
                 absl::StrJoin(ir::AllDTypeNames(), ", "), ")",
                 v.is_name() ? DidYouMean(v.text, ir::AllDTypeNames()) : ""));
    } else {
      own.data_type = type;
      own.data_type_range = v.range;
    }
  }
  // shapes= repeats the layer once per shape.
  std::vector<std::optional<lang::ShapeSpec>> pins;
  if (specials.shapes) {
    const lang::Value& list = specials.shapes->value;
    if (!list.is_list() || list.items.empty()) {
      diagnostics_.Error(list.range,
                         "shapes= takes a list of shapes, such as "
                         "shapes=[[128], [64]]");
      return;
    }
    for (const lang::Value& item : list.items) {
      pins.push_back(ShapeFromValue(item, ShapeUse::kLayer, diagnostics_));
    }
  } else if (specials.shape) {
    pins.push_back(
        ShapeFromValue(specials.shape->value, ShapeUse::kLayer, diagnostics_));
  } else {
    pins.emplace_back();
  }
  for (size_t i = 0; i < pins.size(); ++i) {
    Extras extras = own;
    extras.shape = pins[i];
    if (!name.empty()) {
      extras.names.push_back({specials.shapes ? StrCat(name, i + 1) : name,
                              expansion.scope, !expansion.stack.empty()});
    }
    for (const lang::Argument& arg : layer.args) {
      if (is_template && !arg.positional() && &arg != specials.shape &&
          &arg != specials.shapes && &arg != specials.name &&
          &arg != specials.data_type &&
          !blocks_[layer.op].macro_names.count(arg.key)) {
        extras.options.push_back(arg);  // for the instance's last layer
      }
    }
    extras.MergeFrom(outer);
    if (is_template) {
      Instantiate(layer, expansion, prev, extras);
    } else {
      AddOpLayer(layer, *op, specials, expansion, prev, extras);
    }
  }
}

void ModelBuilder::ReportUnknownOperator(const lang::Layer& layer,
                                         const Expansion& expansion,
                                         bool bound) {
  std::vector<std::string> candidates = ir::AllOpNames();
  candidates.insert(candidates.end(), templates_.begin(), templates_.end());
  std::string suggestion = DidYouMean(layer.op, candidates);
  if (suggestion.empty() && !bound && !expansion.stack.empty()) {
    // Most likely a macro that the block's user did not bind: the mistake
    // is where the block is used.
    const auto& [block, use] = expansion.stack.back();
    diagnostics_.Error(
        use, StrCat("block '", block, "' uses '", layer.op,
                    "()' as a macro, so give it a value here, as in ", block,
                    "(", layer.op, "=relu); '", layer.op,
                    "' is not an operator or a block"));
    return;
  }
  diagnostics_.Error(layer.op_range,
                     StrCat("unknown operator '", layer.op, "'", suggestion));
}

void ModelBuilder::ReportUnboundOptionMacros(Layer& layer,
                                             const Expansion& expansion) {
  if (expansion.stack.empty()) return;
  const auto& [block, use] = expansion.stack.back();
  std::vector<Option> kept;
  for (Option& option : layer.options) {
    const ir::AttrSpec* spec = layer.op->FindAttr(option.attr);
    const lang::Value& v = option.value;
    // A name where only a number or a boolean can stand is a macro that
    // the block's user did not bind: the mistake is where it is used.
    const bool number = spec != nullptr &&
                        (spec->kind == ir::AttrKind::kInt ||
                         spec->kind == ir::AttrKind::kFloat) &&
                        v.is_name() && !v.is_name("Infinity") &&
                        !v.is_name("inf") && !v.is_name("NaN");
    const bool boolean = spec != nullptr && spec->kind == ir::AttrKind::kBool &&
                         v.is_name() && !v.is_name("true") &&
                         !v.is_name("false");
    if ((!number && !boolean) || model_.FindConstant(v.text) >= 0) {
      kept.push_back(std::move(option));
      continue;
    }
    diagnostics_.Error(
        use,
        StrCat("block '", block, "' uses '", v.text, "' as a macro (",
               layer.op->name, " ", option.key, "=", v.text, " at line ",
               diagnostics_.file().Locate(v.range.begin).line,
               "), so give it a value here, as in ", block, "(", v.text, "=",
               !number                            ? "true"
               : spec->kind == ir::AttrKind::kInt ? "1"
                                                  : "0.5",
               "); nothing binds it"));
  }
  layer.options = std::move(kept);
}

void ModelBuilder::Instantiate(const lang::Layer& layer,
                               const Expansion& expansion,
                               std::optional<TensorRef>& prev,
                               const Extras& extras) {
  const Block& block = blocks_[layer.op];
  for (const auto& [used, range] : expansion.stack) {
    if (used == layer.op) {
      std::vector<std::string> chain;
      for (const auto& entry : expansion.stack) chain.push_back(entry.first);
      chain.push_back(layer.op);
      diagnostics_.Error(layer.op_range,
                         StrCat("block '", layer.op, "' instantiates itself (",
                                absl::StrJoin(chain, " -> "), ")"));
      return;
    }
  }
  if (static_cast<int>(expansion.stack.size()) >= kMaxNesting) {
    diagnostics_.Error(layer.op_range, StrCat("blocks are nested more than ",
                                              kMaxNesting, " deep"));
    return;
  }
  Bindings bindings;
  for (const lang::Argument& arg : layer.args) {
    if (arg.positional()) {
      if (!prev) {
        // The first layer of a section without input names its input.
        std::optional<TensorRef> ref = OperandRef(arg.value);
        if (ref) prev = ref;
        continue;
      }
      diagnostics_.Error(arg.range,
                         StrCat("block '", layer.op,
                                "' takes options (such as shape= or its "
                                "macros), not operands"));
      continue;
    }
    if (arg.key == "shape" || arg.key == "shapes" || arg.key == "name" ||
        arg.key == "dataType") {
      continue;
    }
    if (block.macro_names.count(arg.key)) {
      bindings[arg.key] = arg.value;
      continue;
    }
    // Forwarded to the last layer; a near miss of a macro is a typo.
    std::vector<std::string> macros(block.macro_names.begin(),
                                    block.macro_names.end());
    std::string suggestion = DidYouMean(arg.key, macros);
    if (!suggestion.empty()) {
      diagnostics_.Error(arg.key_range,
                         StrCat("block '", layer.op, "' has no macro '",
                                arg.key, "'", suggestion));
    }
  }
  used_templates_.insert(layer.op);
  Expansion inner = expansion;
  inner.scope = NewScope();
  inner.stack.emplace_back(layer.op, layer.op_range);
  ExpandBody(block.get(PropertyKind::kLayers)->layers, bindings, inner, prev,
             extras);
}

void ModelBuilder::AddOpLayer(const lang::Layer& written, const ir::OpDef& op,
                              const LayerSpecials& specials,
                              const Expansion& expansion,
                              std::optional<TensorRef>& prev,
                              const Extras& extras) {
  Layer layer;
  layer.id = static_cast<int>(model_.layers.size());
  layer.op = &op;
  layer.op_range = written.op_range;
  layer.range = written.range;
  layer.section = expansion.section;
  layer.shape = extras.shape;
  layer.data_type = extras.data_type;
  layer.data_type_range = extras.data_type_range;
  if (!expansion.stack.empty()) {
    LineColumn at =
        diagnostics_.file().Locate(expansion.stack.front().second.begin);
    layer.context = StrCat(" (in block '", expansion.stack.back().first,
                           "' used at line ", at.line, ")");
  }
  // The layer's own arguments, then the options its instance forwards.
  std::vector<const lang::Argument*> args;
  for (const lang::Argument& arg : written.args) {
    if (&arg == specials.shape || &arg == specials.shapes ||
        &arg == specials.name || &arg == specials.data_type) {
      continue;
    }
    bool overridden = false;
    for (const lang::Argument& forwarded : extras.options) {
      overridden |= !arg.positional() && forwarded.key == arg.key;
    }
    if (!overridden) args.push_back(&arg);
  }
  for (const lang::Argument& forwarded : extras.options) {
    args.push_back(&forwarded);
  }
  BindArguments(op, args, prev, layer, diagnostics_,
                [this](const lang::Value& v) { return OperandRef(v); });
  ReportUnboundOptionMacros(layer, expansion);
  for (const NameDecl& name : extras.names) RegisterName(name, layer);
  pending_scopes_.push_back(expansion.scope);
  prev = TensorRef{
      .kind = TensorRef::Kind::kLayer, .layer = layer.id, .range = layer.range};
  model_.sections[expansion.section].layers.push_back(layer.id);
  model_.layers.push_back(std::move(layer));
}

std::optional<TensorRef> ModelBuilder::OperandRef(const lang::Value& value) {
  if (value.is_name()) {
    return TensorRef{.kind = TensorRef::Kind::kParameter,
                     .name = value.text,
                     .range = value.range};
  }
  if (value.is_number() || value.is_list()) {
    return TensorRef{.kind = TensorRef::Kind::kLiteral,
                     .literal = value,
                     .range = value.range};
  }
  diagnostics_.Error(value.range,
                     "expected a tensor here: a name, a number or a list");
  return std::nullopt;
}

}  // namespace webnnm::model
