// The instantiated model: what the model text means once blocks are
// expanded, before any shape is known.
//
// model::Build turns a parsed Module into sections (blocks with an input or
// an output) holding a flat list of layers, each one WebNN or high-level
// operation. Templates (blocks without input or output) are instantiated
// where used: macros bound (`activation=relu` makes `activation()` a
// `relu()`), `shapes=` repeated, parameters gensym'd per instance (w1, b1,
// w2, ...), layer names scoped, and every operand resolved to a constant, a
// literal, an earlier layer, a section or a parameter. Every layer keeps the
// source ranges the DAG builder needs for its errors.
#ifndef WEBNNM_ENGINE_MODEL_MODEL_H_
#define WEBNNM_ENGINE_MODEL_MODEL_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/source.h"
#include "engine/ir/dtype.h"
#include "engine/ir/op_def.h"
#include "engine/lang/ast.h"

namespace webnnm::model {

// A tensor an operand refers to.
struct TensorRef {
  enum class Kind {
    kLayer,         // the result of layer `layer` (including the previous one)
    kSectionInput,  // the input of section `section`
    kSection,       // the result of section `section` (its last layer)
    kConstant,      // constant `name`
    kParameter,     // trainable parameter `name` (gensym'd)
    kLiteral,       // the number or (nested) list in `literal`
  };
  Kind kind = Kind::kLiteral;
  int layer = -1;
  int section = -1;
  std::string name;
  lang::Value literal;
  SourceRange range;  // where it was written
};

// An operand bound to one of the op's slots.
struct Operand {
  int slot = 0;
  TensorRef ref;
};

// A non-tensor option, still as written (named axes are resolved by the DAG
// builder once the input's layout is known).
struct Option {
  std::string attr;  // the op's attribute it sets
  std::string key;   // as written (an alias, perhaps)
  SourceRange key_range;
  lang::Value value;
};

struct Layer {
  int id = 0;
  const ir::OpDef* op = nullptr;
  SourceRange op_range;  // where the operator was named (a macro's value)
  SourceRange range;     // the layer as written
  int section = 0;
  std::vector<Operand> operands;  // slot 0 is the implicit input when any
  std::vector<Option> options;
  // shape= on this layer or on the template instance it ends.
  std::optional<lang::ShapeSpec> shape;
  // dataType= (the compute type), with where it was written.
  std::optional<ir::DType> data_type;
  SourceRange data_type_range;
  std::vector<std::string> names;  // global names given with name=
  // "in block 'dense' used at 4:5" for messages about template layers.
  std::string context;
};

struct TensorDecl {
  std::optional<ir::DType> data_type;
  SourceRange data_type_range;
  lang::ShapeSpec shape;
};

struct Section {
  std::string name;
  SourceRange range;  // the block name where first declared
  std::optional<TensorDecl> input;
  std::optional<TensorDecl> output;
  std::vector<int> layers;  // in order
  std::string loss;         // model:loss, as written
  SourceRange loss_range;
  std::optional<double> alpha, delta, gamma;
};

struct Constant {
  std::string name;
  SourceRange range;
  ir::DType data_type = ir::DType::kFloat32;
  bool scalar = false;
  lang::ShapeSpec shape;            // tensor form
  std::vector<lang::Value> values;  // the numbers, flattened row-major
};

struct Parameter {
  std::string name;   // gensym'd: w1, b2, ...
  SourceRange range;  // first use
};

struct Model {
  std::string name;  // model:name, another block's name property, or ""
  std::vector<Section> sections;
  std::vector<Layer> layers;  // in instantiation order
  std::vector<Constant> constants;
  // constants' indices by name (AddConstant keeps it), so that a model of
  // 100,000 constants checks in linear time.
  std::map<std::string, int, std::less<>> constant_index;
  std::vector<Parameter> parameters;  // in order of first use

  int FindSection(std::string_view name) const;
  int FindConstant(std::string_view name) const;
  void AddConstant(Constant constant);
};

}  // namespace webnnm::model

#endif  // WEBNNM_ENGINE_MODEL_MODEL_H_
