// ModelBuilder: the state of one model::Build run (build.h), split across
// build.cc (the run and the final checks), blocks.cc (constants and blocks),
// expand.cc (sections, templates, macros, shapes=, operands) and resolve.cc
// (layer names and operand references). Internal to engine/model.
#ifndef WEBNNM_ENGINE_MODEL_BUILDER_H_
#define WEBNNM_ENGINE_MODEL_BUILDER_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/lang/ast.h"
#include "engine/model/model.h"
#include "engine/model/shape_spec.h"

namespace webnnm::model {

using lang::PropertyKind;

constexpr int kNumProperties = 8;

// Every property of one block, gathered from the whole file.
struct Block {
  std::string name;
  SourceRange range;
  const lang::BlockProperty* properties[kNumProperties] = {};
  std::set<std::string> macro_names;  // templates: names their layers use
  bool prelude = false;  // a template of the prelude (model/prelude.h)

  const lang::BlockProperty* get(PropertyKind kind) const {
    return properties[static_cast<int>(kind)];
  }
  bool is_section() const {
    return get(PropertyKind::kInput) || get(PropertyKind::kOutput);
  }
};

// The loss names model:loss accepts (ERRATA 8).
const std::vector<std::string>& LossNames();
// Every name in `value` (lists and map values included; map keys not).
void CollectNames(const lang::Value& value, std::set<std::string>& names);

class ModelBuilder {
 public:
  ModelBuilder(const lang::Module& module, Diagnostics& diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  Model Run();

 private:
  // ---- blocks.cc --------------------------------------------------------

  void CollectConstants();

  // Flattens nested data lists into numbers, reporting anything else.
  bool Flatten(const lang::Value& value, std::vector<lang::Value>& out);

  void CollectBlocks();

  void ClassifyBlocks();

  // ---- expansion -----------------------------------------------------------

  void ExpandSection(int index);

  std::optional<TensorDecl> Declare(const lang::BlockProperty& property,
                                    ShapeUse use);

  int NewScope();

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
                  std::optional<TensorRef>& prev, const Extras& extras);

  // Replaces macro names bound by the caller with the caller's values.
  std::optional<lang::Layer> Substitute(const lang::Layer& layer,
                                        const Bindings& bindings);

  void SubstituteValue(lang::Value& value, const Bindings& bindings);

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
                   bool op_bound);

  void ReportUnknownOperator(const lang::Layer& layer,
                             const Expansion& expansion, bool bound);

  // An option of a template's layer whose value is a name where only a
  // number or a boolean can stand (dropout(p=rate)) is a macro the
  // template's user did not bind: reported at the use, naming the macro,
  // the block and the option, and dropped from the layer.
  void ReportUnboundOptionMacros(Layer& layer, const Expansion& expansion);

  // A trainable operand's name inside a template that names a block (an
  // input block `b` read by add(b)): warned, since a parameter was likely
  // meant.
  void WarnParameterNamedLikeBlock(const Layer& layer, const Operand& operand,
                                   const Section& section);

  void Instantiate(const lang::Layer& layer, const Expansion& expansion,
                   std::optional<TensorRef>& prev, const Extras& extras);

  void AddOpLayer(const lang::Layer& written, const ir::OpDef& op,
                  const LayerSpecials& specials, const Expansion& expansion,
                  std::optional<TensorRef>& prev, const Extras& extras);

  // A written operand: names resolve later, numbers and lists are literals.
  std::optional<TensorRef> OperandRef(const lang::Value& value);

  void RegisterName(const NameDecl& name, Layer& layer);

  // ---- name resolution -----------------------------------------------------

  void ResolveReferences();

  void Resolve(Layer& layer, Operand& operand, int scope);

  void CheckSections();

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
  std::set<int> used_constants_;  // indices of constants some layer reads
  std::vector<Scope> scopes_;
  std::vector<int> pending_scopes_;  // per layer: its instance scope
  std::map<std::string, int> global_layers_;
  std::map<std::string, int> name_counters_;
  std::map<std::string, int> parameter_counters_;
  bool too_many_reported_ = false;
};

}  // namespace webnnm::model

#endif  // WEBNNM_ENGINE_MODEL_BUILDER_H_
