#include "engine/model/build.h"

#include <map>
#include <set>

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/model/binding.h"
#include "engine/model/shape_spec.h"

namespace webnnm::model {
namespace {

using lang::PropertyKind;

constexpr int kNumProperties = 8;

// Every property of one block, gathered from the whole file.
struct Block {
  std::string name;
  SourceRange range;
  const lang::BlockProperty* properties[kNumProperties] = {};
  std::set<std::string> macro_names;  // templates: names their layers use

  const lang::BlockProperty* get(PropertyKind kind) const {
    return properties[static_cast<int>(kind)];
  }
  bool is_section() const {
    return get(PropertyKind::kInput) || get(PropertyKind::kOutput);
  }
};

const std::vector<std::string>& LossNames() {
  static const auto* names =
      new std::vector<std::string>{"MSE",
                                   "MAE",
                                   "BCE",
                                   "CCE",
                                   "CCEL",
                                   "SCE",
                                   "HIL",
                                   "HUL",
                                   "KLD",
                                   "FOL",
                                   "meanSquaredError",
                                   "meanAbsoluteError",
                                   "binaryCrossEntropy",
                                   "categoricalCrossEntropy",
                                   "categoricalCrossEntropyWithLogits",
                                   "sparseCategoricalCrossEntropy",
                                   "hinge",
                                   "huber",
                                   "klDivergence",
                                   "focal"};
  return *names;
}

void CollectNames(const lang::Value& value, std::set<std::string>& names) {
  switch (value.kind) {
    case lang::Value::Kind::kName:
      names.insert(value.text);
      break;
    case lang::Value::Kind::kList:
      for (const lang::Value& item : value.items) CollectNames(item, names);
      break;
    case lang::Value::Kind::kMap:
      for (const lang::MapItem& item : value.entries) {
        CollectNames(item.value, names);
      }
      break;
    default:
      break;
  }
}

class Builder {
 public:
  Builder(const lang::Module& module, Diagnostics& diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  Model Run() {
    CollectConstants();
    CollectBlocks();
    ClassifyBlocks();
    for (size_t i = 0; i < section_order_.size(); ++i) {
      ExpandSection(static_cast<int>(i));
    }
    ResolveReferences();
    CheckSections();
    for (const std::string& name : block_order_) {
      if (templates_.count(name) && !used_templates_.count(name)) {
        diagnostics_.Warning(blocks_[name].range,
                             StrCat("block '", name, "' is never used"));
      }
    }
    return std::move(model_);
  }

 private:
  // ---- declarations --------------------------------------------------------

  void CollectConstants() {
    for (const lang::ConstantDecl& decl : module_.constants) {
      if (model_.FindConstant(decl.name) >= 0) {
        diagnostics_.Error(decl.name_range, StrCat("constant '", decl.name,
                                                   "' is declared twice"));
        continue;
      }
      Constant constant;
      constant.name = decl.name;
      constant.range = decl.name_range;
      if (!decl.data_type.empty()) {
        constant.data_type = *ir::ParseDType(decl.data_type);
      }
      constant.scalar = decl.scalar;
      if (decl.scalar) {
        constant.values.push_back(decl.value);
      } else {
        constant.shape = decl.shape;
        if (!CheckShapeSpec(decl.shape, ShapeUse::kConstant, diagnostics_)) {
          continue;
        }
        if (!Flatten(decl.value, constant.values)) continue;
        int64_t size = 1;
        bool overflow = false;
        for (const lang::Dim& dim : decl.shape.dims) {
          if (__builtin_mul_overflow(size, *dim.size, &size)) overflow = true;
        }
        if (overflow || size != static_cast<int64_t>(constant.values.size())) {
          diagnostics_.Error(
              decl.value.range,
              StrCat("constant '", decl.name, "' has ", constant.values.size(),
                     " values but its shape needs ",
                     overflow ? std::string("more than 2^63") : StrCat(size)));
          continue;
        }
      }
      model_.constants.push_back(std::move(constant));
    }
  }

  // Flattens nested data lists into numbers, reporting anything else.
  bool Flatten(const lang::Value& value, std::vector<lang::Value>& out) {
    if (value.is_number()) {
      out.push_back(value);
      return true;
    }
    if (value.is_list()) {
      bool ok = true;
      for (const lang::Value& item : value.items) ok &= Flatten(item, out);
      return ok;
    }
    diagnostics_.Error(value.range, "constant data must be numbers");
    return false;
  }

  void CollectBlocks() {
    for (const lang::BlockProperty& property : module_.properties) {
      auto [it, inserted] = blocks_.try_emplace(property.block);
      Block& block = it->second;
      if (inserted) {
        block.name = property.block;
        block.range = property.block_range;
        block_order_.push_back(property.block);
      }
      const lang::BlockProperty*& slot =
          block.properties[static_cast<int>(property.kind)];
      if (slot != nullptr) {
        LineColumn first = diagnostics_.file().Locate(slot->range.begin);
        diagnostics_.Error(
            property.kind_range,
            StrCat("'", property.block, ":", lang::PropertyName(property.kind),
                   "' is given twice (first at line ", first.line, ")"));
        continue;
      }
      slot = &property;
    }
  }

  void ClassifyBlocks() {
    for (const std::string& name : block_order_) {
      Block& block = blocks_[name];
      if (model_.FindConstant(name) >= 0) {
        diagnostics_.Error(block.range, StrCat("'", name,
                                               "' is both a constant and a "
                                               "block"));
      }
      if (ir::FindOp(name) != nullptr) {
        diagnostics_.Error(block.range,
                           StrCat("block name '", name,
                                  "' is the name of a built-in operator"));
      }
      const lang::BlockProperty* layers = block.get(PropertyKind::kLayers);
      if (block.is_section()) {
        // An input-only block stands for its input (multimodal models fuse
        // such inputs in another block); an output needs layers.
        if (layers == nullptr && block.get(PropertyKind::kOutput)) {
          diagnostics_.Error(
              block.range,
              StrCat("block '", name, "' declares an output but no layers ('",
                     name, ":layers ...;')"));
        }
        section_order_.push_back(name);
        continue;
      }
      if (layers == nullptr) {
        bool only_name = block.get(PropertyKind::kName) != nullptr;
        for (PropertyKind kind : {PropertyKind::kLoss, PropertyKind::kAlpha,
                                  PropertyKind::kDelta, PropertyKind::kGamma}) {
          only_name &= block.get(kind) == nullptr;
        }
        if (name == "model" && only_name) continue;  // names the model
        if (name == "mode" && block.get(PropertyKind::kName)) {
          // A known slip in the specification's first example (ERRATA 1).
          diagnostics_.Warning(block.range,
                               "'mode:name' is read as 'model:name'");
          continue;
        }
        diagnostics_.Warning(block.range,
                             StrCat("block '", name,
                                    "' has no layers, input or output and is "
                                    "ignored"));
        continue;
      }
      for (PropertyKind kind : {PropertyKind::kLoss, PropertyKind::kAlpha,
                                PropertyKind::kDelta, PropertyKind::kGamma}) {
        if (const lang::BlockProperty* p = block.get(kind)) {
          diagnostics_.Warning(
              p->kind_range,
              StrCat("'", name, ":", lang::PropertyName(kind),
                     "' has no effect: block '", name, "' has no output"));
        }
      }
      for (const lang::Layer& layer : layers->layers) {
        block.macro_names.insert(layer.op);
        for (const lang::Argument& arg : layer.args) {
          CollectNames(arg.value, block.macro_names);
        }
      }
      templates_.insert(name);
    }
    // The model's name: model:name, else the first name property.
    std::string mode_name;
    for (const std::string& name : block_order_) {
      const lang::BlockProperty* p = blocks_[name].get(PropertyKind::kName);
      if (p == nullptr) continue;
      if (name == "model") {
        model_.name = p->value.text;
        break;
      }
      if (model_.name.empty() && mode_name.empty()) mode_name = p->value.text;
    }
    if (model_.name.empty()) model_.name = mode_name;
  }

  // ---- expansion -----------------------------------------------------------

  void ExpandSection(int index) {
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

  std::optional<TensorDecl> Declare(const lang::BlockProperty& property,
                                    ShapeUse use) {
    TensorDecl decl;
    if (!property.data_type.empty()) {
      decl.data_type = ir::ParseDType(property.data_type);
      decl.data_type_range = property.data_type_range;
    }
    decl.shape = property.shape;
    if (!CheckShapeSpec(property.shape, use, diagnostics_)) return decl;
    return decl;
  }

  int NewScope() {
    scopes_.emplace_back();
    return static_cast<int>(scopes_.size()) - 1;
  }

  // A name= as written: inside a template it is local to the instance
  // (`scope`) and gains a counter globally.
  struct NameDecl {
    std::string name;
    int scope = 0;
    bool in_template = false;
  };

  // What an instantiating layer passes to the last layer of its instance.
  struct Extras {
    std::optional<lang::ShapeSpec> shape;
    std::optional<ir::DType> data_type;
    SourceRange data_type_range;
    std::vector<NameDecl> names;
    std::vector<lang::Argument> options;

    // `outer` (from further out) wins over this instance's own.
    void MergeFrom(const Extras& outer) {
      if (outer.shape) shape = outer.shape;
      if (outer.data_type) {
        data_type = outer.data_type;
        data_type_range = outer.data_type_range;
      }
      names.insert(names.end(), outer.names.begin(), outer.names.end());
      for (const lang::Argument& option : outer.options) {
        std::erase_if(options, [&](const lang::Argument& a) {
          return a.key == option.key;
        });
        options.push_back(option);
      }
    }
  };

  struct Expansion {
    int section = 0;
    int scope = 0;
    std::vector<std::pair<std::string, SourceRange>> stack;  // templates in use
  };

  using Bindings = std::map<std::string, lang::Value>;

  void ExpandBody(const std::vector<lang::Layer>& body,
                  const Bindings& bindings, const Expansion& expansion,
                  std::optional<TensorRef>& prev, const Extras& extras) {
    for (size_t i = 0; i < body.size(); ++i) {
      std::optional<lang::Layer> layer = Substitute(body[i], bindings);
      if (!layer) continue;
      bool last = i + 1 == body.size();
      ExpandLayer(*layer, expansion, prev, last ? extras : Extras{},
                  bindings.count(body[i].op) > 0);
    }
  }

  // Replaces macro names bound by the caller with the caller's values.
  std::optional<lang::Layer> Substitute(const lang::Layer& layer,
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

  void SubstituteValue(lang::Value& value, const Bindings& bindings) {
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

  // The special options every layer takes: shape, shapes, name, dataType.
  struct LayerSpecials {
    const lang::Argument* shape = nullptr;
    const lang::Argument* shapes = nullptr;
    const lang::Argument* name = nullptr;
    const lang::Argument* data_type = nullptr;
  };

  // `op_bound`: the operator name came from a macro's value.
  void ExpandLayer(const lang::Layer& layer, const Expansion& expansion,
                   std::optional<TensorRef>& prev, const Extras& outer,
                   bool op_bound) {
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
      pins.push_back(ShapeFromValue(specials.shape->value, ShapeUse::kLayer,
                                    diagnostics_));
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

  void ReportUnknownOperator(const lang::Layer& layer,
                             const Expansion& expansion, bool bound) {
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

  void Instantiate(const lang::Layer& layer, const Expansion& expansion,
                   std::optional<TensorRef>& prev, const Extras& extras) {
    const Block& block = blocks_[layer.op];
    for (const auto& [used, range] : expansion.stack) {
      if (used == layer.op) {
        std::vector<std::string> chain;
        for (const auto& entry : expansion.stack) chain.push_back(entry.first);
        chain.push_back(layer.op);
        diagnostics_.Error(
            layer.op_range,
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

  void AddOpLayer(const lang::Layer& written, const ir::OpDef& op,
                  const LayerSpecials& specials, const Expansion& expansion,
                  std::optional<TensorRef>& prev, const Extras& extras) {
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
    for (const NameDecl& name : extras.names) RegisterName(name, layer);
    pending_scopes_.push_back(expansion.scope);
    prev = TensorRef{.kind = TensorRef::Kind::kLayer,
                     .layer = layer.id,
                     .range = layer.range};
    model_.sections[expansion.section].layers.push_back(layer.id);
    model_.layers.push_back(std::move(layer));
  }

  // A written operand: names resolve later, numbers and lists are literals.
  std::optional<TensorRef> OperandRef(const lang::Value& value) {
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

  void RegisterName(const NameDecl& name, Layer& layer) {
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
      diagnostics_.Error(layer.range,
                         StrCat("layer name '", global,
                                "' is already used (line ", first.line, ")"));
      return;
    }
    layer.names.push_back(global);
  }

  // ---- name resolution -----------------------------------------------------

  void ResolveReferences() {
    for (Layer& layer : model_.layers) {
      int scope = pending_scopes_[layer.id];
      for (Operand& operand : layer.operands) {
        if (operand.ref.kind != TensorRef::Kind::kParameter) continue;
        Resolve(layer, operand, scope);
      }
    }
  }

  void Resolve(Layer& layer, Operand& operand, int scope) {
    TensorRef& ref = operand.ref;
    const std::string name = ref.name;
    if (model_.FindConstant(name) >= 0) {
      ref.kind = TensorRef::Kind::kConstant;
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
      std::string slot = layer.op->variadic()
                             ? "inputs"
                             : layer.op->operands[operand.slot].name;
      diagnostics_.Error(
          ref.range,
          StrCat("'", name, "' is not a constant, layer or block, and ",
                 layer.op->name, "'s ", slot,
                 " cannot be a trainable parameter",
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

  void CheckSections() {
    bool any_input = false, any_output = false;
    for (const Section& section : model_.sections) {
      any_input |= section.input.has_value();
      any_output |= section.output.has_value();
    }
    if (model_.sections.empty()) {
      SourceRange at{0, 0};
      diagnostics_.Error(at,
                         "the model has no block with an input or an "
                         "output (such as 'model:input shape=[4];')");
      return;
    }
    if (!any_input) {
      diagnostics_.Error(model_.sections[0].range,
                         "the model declares no input (such as "
                         "'model:input shape=[4];')");
    }
    if (!any_output) {
      diagnostics_.Error(model_.sections[0].range,
                         "the model declares no output (such as "
                         "'model:output shape=[3];')");
    }
  }

  struct Scope {
    std::map<std::string, int> layers;              // instance-local names
    std::map<std::string, std::string> parameters;  // written -> gensym'd
  };

  const lang::Module& module_;
  Diagnostics& diagnostics_;
  Model model_;
  std::map<std::string, Block> blocks_;
  std::vector<std::string> block_order_;
  std::vector<std::string> section_order_;
  std::set<std::string> templates_;
  std::set<std::string> used_templates_;
  std::vector<Scope> scopes_;
  std::vector<int> pending_scopes_;  // per layer: its instance scope
  std::map<std::string, int> global_layers_;
  std::map<std::string, int> name_counters_;
  std::map<std::string, int> parameter_counters_;
  bool too_many_reported_ = false;
};

}  // namespace

int Model::FindSection(std::string_view name) const {
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Model::FindConstant(std::string_view name) const {
  for (size_t i = 0; i < constants.size(); ++i) {
    if (constants[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Model Build(const lang::Module& module, Diagnostics& diagnostics) {
  return Builder(module, diagnostics).Run();
}

}  // namespace webnnm::model
