// Constants and blocks: gathering every property of a block, and telling
// sections from templates.
#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/model/builder.h"
#include "engine/model/shape_spec.h"

namespace webnnm::model {

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

void ModelBuilder::CollectConstants() {
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
    model_.AddConstant(std::move(constant));
  }
}

bool ModelBuilder::Flatten(const lang::Value& value,
                           std::vector<lang::Value>& out) {
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

void ModelBuilder::CollectBlocks() {
  for (const lang::BlockProperty& property : module_.properties) {
    auto [it, inserted] = blocks_.try_emplace(property.block);
    Block& block = it->second;
    if (inserted) {
      block.name = property.block;
      block.range = property.block_range;
      block.prelude = property.prelude;
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

void ModelBuilder::ClassifyBlocks() {
  for (const std::string& name : block_order_) {
    Block& block = blocks_[name];
    if (model_.FindConstant(name) >= 0) {
      diagnostics_.Error(block.range, StrCat("'", name,
                                             "' is both a constant and a "
                                             "block"));
    }
    if (ir::FindOp(name) != nullptr) {
      diagnostics_.Error(
          block.range,
          StrCat("block name '", name, "' is the name of a built-in operator"));
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

}  // namespace webnnm::model
