// Syntax tree of a WebNNM model file.
//
// The parser produces one Module per file: constants and block properties in
// source order. Every node keeps the source range of what the user wrote, so
// the model builder and the DAG builder can point their errors at it. Values
// are plain copyable data: the model builder copies them when it binds macros.
#ifndef WEBNNM_ENGINE_LANG_AST_H_
#define WEBNNM_ENGINE_LANG_AST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/source.h"

namespace webnnm::lang {

struct MapItem;

// VALUE ::= name | number | LIST | MAP   (true/false are names)
struct Value {
  enum class Kind { kNone, kName, kNumber, kList, kMap };
  Kind kind = Kind::kNone;
  SourceRange range;
  std::string text;              // kName: the name; kNumber: the spelling
  double number = 0;             // kNumber
  bool integral = false;         // kNumber with an exact integer value
  int64_t integer = 0;           // kNumber when integral
  std::vector<Value> items;      // kList
  std::vector<MapItem> entries;  // kMap

  bool is_name() const { return kind == Kind::kName; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_list() const { return kind == Kind::kList; }
  bool is_map() const { return kind == Kind::kMap; }
  bool is_name(std::string_view name) const {
    return kind == Kind::kName && text == name;
  }
};

// ITEM ::= name ( ":" ( number | name | LIST ) )?
struct MapItem {
  std::string key;
  SourceRange key_range;
  Value value;  // Kind::kNone for a bare name such as `height` in a map
};

// A dimension of a declared shape: `784` in [784], `height: 28` or the bare
// `sequence` in {...}.
struct Dim {
  std::string name;  // empty in a [...] shape
  SourceRange name_range;
  std::optional<int64_t> size;  // absent only for a bare name
  SourceRange range;
};

// SHAPE ::= "[" ( number ( "," number )* )? "]"
//         | "{" name ( ":" number )? ( "," name ( ":" number )? )* "}"
struct ShapeSpec {
  bool named = false;  // written with braces
  std::vector<Dim> dims;
  SourceRange range;
};

// ARGUMENT ::= VALUE | name "=" VALUE
struct Argument {
  std::string key;  // empty for a positional operand
  SourceRange key_range;
  Value value;
  SourceRange range;

  bool positional() const { return key.empty(); }
};

// LAYER ::= name "(" ( ARGUMENT ( "," ARGUMENT )* )? ")"
struct Layer {
  std::string op;
  SourceRange op_range;
  std::vector<Argument> args;
  SourceRange range;
};

enum class PropertyKind {
  kName,
  kLoss,
  kAlpha,
  kDelta,
  kGamma,
  kInput,
  kOutput,
  kLayers
};
const char* PropertyName(PropertyKind kind);

// BLOCK ::= name ":" property ...
struct BlockProperty {
  std::string block;
  SourceRange block_range;
  PropertyKind kind = PropertyKind::kName;
  SourceRange kind_range;
  Value value;            // name, loss: a name; alpha/delta/gamma: a number
  std::string data_type;  // input/output: the optional data type
  SourceRange data_type_range;
  ShapeSpec shape;            // input/output
  std::vector<Layer> layers;  // layers
  SourceRange range;
  // From the prelude (model/prelude.h), not the user's text.
  bool prelude = false;
};

// CONSTANT ::= name datatype? ( number | "shape" "=" SHAPE "data" "=" LIST )
struct ConstantDecl {
  std::string name;
  SourceRange name_range;
  std::string data_type;  // empty when not given (float32)
  SourceRange data_type_range;
  bool scalar = false;
  Value value;  // scalar: the number; tensor: the data list
  ShapeSpec shape;
  SourceRange range;
};

struct Module {
  std::vector<ConstantDecl> constants;
  std::vector<BlockProperty> properties;
};

}  // namespace webnnm::lang

#endif  // WEBNNM_ENGINE_LANG_AST_H_
