#include "engine/model/build.h"

#include "engine/base/strings.h"
#include "engine/model/builder.h"

namespace webnnm::model {

Model ModelBuilder::Run() {
  CollectConstants();
  CollectBlocks();
  ClassifyBlocks();
  for (size_t i = 0; i < section_order_.size(); ++i) {
    ExpandSection(static_cast<int>(i));
  }
  ResolveReferences();
  CheckSections();
  for (const std::string& name : block_order_) {
    if (templates_.count(name) && !used_templates_.count(name) &&
        !blocks_[name].prelude) {
      diagnostics_.Warning(blocks_[name].range,
                           StrCat("block '", name, "' is never used"));
    }
  }
  return std::move(model_);
}

void ModelBuilder::CheckSections() {
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

int Model::FindSection(std::string_view name) const {
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Model::FindConstant(std::string_view name) const {
  if (constant_index.size() == constants.size()) {
    auto it = constant_index.find(name);
    return it == constant_index.end() ? -1 : it->second;
  }
  for (size_t i = 0; i < constants.size(); ++i) {  // filled another way
    if (constants[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void Model::AddConstant(Constant constant) {
  constant_index.emplace(constant.name, static_cast<int>(constants.size()));
  constants.push_back(std::move(constant));
}

Model Build(const lang::Module& module, Diagnostics& diagnostics) {
  return ModelBuilder(module, diagnostics).Run();
}

}  // namespace webnnm::model
