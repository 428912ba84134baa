#include "engine/lang/parser.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/ir/dtype.h"
#include "engine/lang/lexer.h"

namespace webnnm::lang {
namespace {

constexpr int kMaxNesting = 64;  // lists and maps inside each other

const std::vector<std::string>& PropertyNames() {
  static const auto* names = new std::vector<std::string>{
      "name", "loss", "alpha", "delta", "gamma", "input", "output", "layers"};
  return *names;
}

// Thrown-free failure marker: parsing functions return false after they have
// reported an error; the caller decides where to recover.
class Parser {
 public:
  Parser(std::vector<Token> tokens, Diagnostics& diagnostics)
      : tokens_(std::move(tokens)), diagnostics_(diagnostics) {}

  // Module ::= ( ( CONSTANT | BLOCK ) ";" )*
  Module ParseModule() {
    Module module;
    while (!At(TokenKind::kEnd)) {
      if (!ParseStatement(module)) SkipPast({TokenKind::kSemicolon});
    }
    return module;
  }

 private:
  // ---- token access -------------------------------------------------------

  const Token& Peek(int ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  const Token& Advance() {
    const Token& token = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return token;
  }
  // The end of the previous token: where a missing ';' or ')' belongs.
  SourceRange AfterPrevious() const {
    uint32_t end = pos_ > 0 ? tokens_[pos_ - 1].range.end : 0;
    return {end, end};
  }

  // Reports "expected <what>, found <token>" at the current token (or just
  // after the previous token when a terminator is missing).
  void ErrorExpected(const std::string& what, bool after_previous = false) {
    const Token& found = Peek();
    if (found.kind == TokenKind::kInvalid) return;  // the lexer reported it
    SourceRange at = after_previous && pos_ > 0 ? AfterPrevious() : found.range;
    diagnostics_.Error(at,
                       StrCat("expected ", what, ", found ", Describe(found)));
  }

  bool Expect(TokenKind kind, const std::string& context,
              bool after_previous = false) {
    if (At(kind)) {
      Advance();
      return true;
    }
    ErrorExpected(StrCat(DescribeKind(kind), " ", context), after_previous);
    return false;
  }

  // Skips tokens up to (not past) one of `stops` at nesting depth 0, or an
  // unmatched closing bracket, or ';' (which ends every statement), or the
  // end of the file.
  void SkipTo(std::initializer_list<TokenKind> stops) {
    int depth = 0;
    while (!At(TokenKind::kEnd)) {
      TokenKind kind = Peek().kind;
      if (depth == 0) {
        for (TokenKind stop : stops) {
          if (kind == stop) return;
        }
        if (kind == TokenKind::kSemicolon) return;
      }
      if (kind == TokenKind::kLParen || kind == TokenKind::kLBracket ||
          kind == TokenKind::kLBrace) {
        ++depth;
      } else if (kind == TokenKind::kRParen || kind == TokenKind::kRBracket ||
                 kind == TokenKind::kRBrace) {
        if (depth == 0) return;
        --depth;
      }
      Advance();
    }
  }
  // Skips the rest of a bad argument, up to the ',' or ')' of the argument
  // list (or, with `to_close`, up to its ')' only); closers of lists and
  // maps left open inside it are skipped too.
  void SkipInArguments(bool to_close) {
    int depth = 0;
    while (!At(TokenKind::kEnd) && !At(TokenKind::kSemicolon)) {
      TokenKind kind = Peek().kind;
      if (depth == 0 && (kind == TokenKind::kRParen ||
                         (!to_close && kind == TokenKind::kComma))) {
        return;
      }
      if (kind == TokenKind::kLParen || kind == TokenKind::kLBracket ||
          kind == TokenKind::kLBrace) {
        ++depth;
      } else if ((kind == TokenKind::kRParen || kind == TokenKind::kRBracket ||
                  kind == TokenKind::kRBrace) &&
                 depth > 0) {
        --depth;
      }
      Advance();
    }
  }

  void SkipPast(std::initializer_list<TokenKind> stops) {
    SkipTo(stops);
    // An unmatched closer at depth 0 belongs to nothing here: drop it too.
    while (!At(TokenKind::kEnd) && !At(TokenKind::kSemicolon)) Advance();
    if (At(TokenKind::kSemicolon)) Advance();
  }

  // ---- statements ---------------------------------------------------------

  bool ParseStatement(Module& module) {
    if (!At(TokenKind::kName)) {
      ErrorExpected(
          "a block property (such as 'model:layers') or a constant "
          "declaration");
      return false;
    }
    if (Peek(1).kind == TokenKind::kColon) return ParseBlockProperty(module);
    return ParseConstant(module);
  }

  // BLOCK ::= name ":" ( "name" name | "loss" name | "alpha" number
  //         | "delta" number | "gamma" number
  //         | "input" datatype? ( "shape" "=" )? SHAPE
  //         | "output" datatype? ( "shape" "=" )? SHAPE
  //         | "layers" LAYER ( "," LAYER )* ) ";"
  bool ParseBlockProperty(Module& module) {
    BlockProperty property;
    const Token& block = Advance();
    property.block = std::string(block.text);
    property.block_range = block.range;
    Advance();  // ':'
    if (!At(TokenKind::kName)) {
      ErrorExpected(StrCat("a property name after '", block.text,
                           ":' (one of name, loss, alpha, delta, gamma, "
                           "input, output, layers)"));
      return false;
    }
    const Token& kind = Advance();
    property.kind_range = kind.range;
    std::optional<PropertyKind> parsed = ParsePropertyKind(kind.text);
    if (!parsed) {
      diagnostics_.Error(
          kind.range,
          StrCat("unknown block property '", kind.text,
                 "'; expected one of name, loss, alpha, delta, gamma, "
                 "input, output, layers",
                 DidYouMean(kind.text, PropertyNames())));
      return false;
    }
    property.kind = *parsed;
    bool ok = true;
    switch (property.kind) {
      case PropertyKind::kName:
      case PropertyKind::kLoss:
        ok = ParseNameProperty(property);
        break;
      case PropertyKind::kAlpha:
      case PropertyKind::kDelta:
      case PropertyKind::kGamma:
        ok = ParseNumberProperty(property);
        break;
      case PropertyKind::kInput:
      case PropertyKind::kOutput:
        ok = ParseTensorProperty(property);
        break;
      case PropertyKind::kLayers:
        ok = ParseLayers(property);
        break;
    }
    if (!ok) return false;
    property.range = SourceRange::Cover(property.block_range, AfterPrevious());
    if (!Expect(TokenKind::kSemicolon,
                StrCat("at the end of '", property.block, ":",
                       PropertyName(property.kind), "'"),
                /*after_previous=*/true)) {
      // Keep what parsed; the caller skips to the next ';'.
      module.properties.push_back(std::move(property));
      return false;
    }
    module.properties.push_back(std::move(property));
    return true;
  }

  static std::optional<PropertyKind> ParsePropertyKind(std::string_view name) {
    static constexpr PropertyKind kinds[] = {
        PropertyKind::kName,   PropertyKind::kLoss,  PropertyKind::kAlpha,
        PropertyKind::kDelta,  PropertyKind::kGamma, PropertyKind::kInput,
        PropertyKind::kOutput, PropertyKind::kLayers};
    for (PropertyKind kind : kinds) {
      if (name == PropertyName(kind)) return kind;
    }
    return std::nullopt;
  }

  bool ParseNameProperty(BlockProperty& property) {
    if (!At(TokenKind::kName)) {
      ErrorExpected(StrCat("a name after '", property.block, ":",
                           PropertyName(property.kind), "'"));
      return false;
    }
    property.value = NameValue(Advance());
    return true;
  }

  bool ParseNumberProperty(BlockProperty& property) {
    if (!At(TokenKind::kNumber)) {
      ErrorExpected(StrCat("a number after '", property.block, ":",
                           PropertyName(property.kind), "'"));
      return false;
    }
    property.value = NumberValue(Advance());
    return true;
  }

  // datatype? ( "shape" "=" )? SHAPE
  bool ParseTensorProperty(BlockProperty& property) {
    std::string context = StrCat("after '", property.block, ":",
                                 PropertyName(property.kind), "'");
    if (At(TokenKind::kName) && Peek().text != "shape") {
      if (!ParseDataType(property.data_type, property.data_type_range,
                         context)) {
        return false;
      }
    }
    if (At(TokenKind::kName) && Peek().text == "shape") {
      Advance();
      if (!Expect(TokenKind::kEquals, "after 'shape'")) return false;
    }
    return ParseShape(property.shape, context);
  }

  bool ParseDataType(std::string& out, SourceRange& range,
                     const std::string& context) {
    const Token& token = Peek();
    if (!ir::ParseDType(token.text)) {
      diagnostics_.Error(token.range,
                         StrCat("expected a data type or 'shape=' ", context,
                                ", found ", Describe(token), " (data types: ",
                                absl::StrJoin(ir::AllDTypeNames(), ", "), ")",
                                DidYouMean(token.text, ir::AllDTypeNames())));
      return false;
    }
    out = std::string(token.text);
    range = token.range;
    Advance();
    return true;
  }

  // CONSTANT ::= name datatype? number
  //            | name datatype? "shape" "=" SHAPE "data" "=" LIST
  bool ParseConstant(Module& module) {
    ConstantDecl constant;
    const Token& name = Advance();
    constant.name = std::string(name.text);
    constant.name_range = name.range;
    std::string context =
        StrCat("in the declaration of constant '", constant.name, "'");
    if (At(TokenKind::kName) && Peek().text != "shape" &&
        Peek().text != "data") {
      if (!ir::ParseDType(Peek().text)) {
        const Token& found = Peek();
        diagnostics_.Error(
            found.range,
            StrCat("expected ':' after the block name '", constant.name,
                   "' or a data type, number or 'shape=' ", context, ", found ",
                   Describe(found),
                   DidYouMean(found.text, ir::AllDTypeNames())));
        return false;
      }
      ParseDataType(constant.data_type, constant.data_type_range, context);
    }
    if (At(TokenKind::kNumber)) {
      constant.scalar = true;
      constant.value = NumberValue(Advance());
    } else if (At(TokenKind::kName) &&
               (Peek().text == "shape" || Peek().text == "data")) {
      bool have_shape = false, have_data = false;
      while (At(TokenKind::kName) &&
             (Peek().text == "shape" || Peek().text == "data")) {
        const Token& key = Advance();
        bool is_shape = key.text == "shape";
        if ((is_shape && have_shape) || (!is_shape && have_data)) {
          diagnostics_.Error(key.range,
                             StrCat("'", key.text, "=' given twice ", context));
          return false;
        }
        if (!Expect(TokenKind::kEquals, StrCat("after '", key.text, "'"))) {
          return false;
        }
        if (is_shape) {
          have_shape = true;
          if (!ParseShape(constant.shape, context)) return false;
        } else {
          have_data = true;
          if (!At(TokenKind::kLBracket)) {
            ErrorExpected("'[' to start the data list");
            return false;
          }
          if (!ParseValue(constant.value, 0)) return false;
        }
      }
      if (!have_shape || !have_data) {
        ErrorExpected(
            have_shape ? "'data=' after the shape" : "'shape=' before the data",
            /*after_previous=*/true);
        return false;
      }
    } else {
      ErrorExpected(StrCat("a number or 'shape=' ", context));
      return false;
    }
    constant.range = SourceRange::Cover(constant.name_range, AfterPrevious());
    bool terminated =
        Expect(TokenKind::kSemicolon,
               StrCat("at the end of constant '", constant.name, "'"),
               /*after_previous=*/true);
    module.constants.push_back(std::move(constant));
    return terminated;
  }

  // SHAPE ::= "[" ( number ( "," number )* )? "]"
  //         | "{" name ( ":" number )? ( "," name ( ":" number )? )* "}"
  bool ParseShape(ShapeSpec& shape, const std::string& context) {
    if (!At(TokenKind::kLBracket) && !At(TokenKind::kLBrace)) {
      ErrorExpected(
          StrCat("a shape such as [784] or {height: 28, "
                 "width: 28} ",
                 context));
      return false;
    }
    Value value;
    if (!ParseValue(value, 0)) return false;
    shape.range = value.range;
    shape.named = value.is_map();
    if (shape.named && value.entries.empty()) {
      diagnostics_.Error(value.range,
                         "a named shape needs at least one "
                         "dimension; write [] for a scalar");
      return false;
    }
    bool ok = true;
    if (value.is_list()) {
      for (const Value& item : value.items) {
        Dim dim;
        dim.range = item.range;
        if (!CheckDimSize(item)) {
          ok = false;
          continue;
        }
        dim.size = item.integer;
        shape.dims.push_back(std::move(dim));
      }
    } else {
      for (const MapItem& item : value.entries) {
        Dim dim;
        dim.name = item.key;
        dim.name_range = item.key_range;
        dim.range = SourceRange::Cover(item.key_range, item.value.range);
        if (item.value.kind != Value::Kind::kNone) {
          if (!CheckDimSize(item.value)) {
            ok = false;
            continue;
          }
          dim.size = item.value.integer;
        } else {
          dim.range = item.key_range;
        }
        shape.dims.push_back(std::move(dim));
      }
    }
    return ok;
  }

  bool CheckDimSize(const Value& value) {
    if (!value.is_number() || !value.integral || value.integer <= 0) {
      diagnostics_.Error(
          value.range,
          StrCat("a dimension size must be a positive integer, found ",
                 DescribeValue(value)));
      return false;
    }
    return true;
  }

  // ---- layers -------------------------------------------------------------

  // "layers" LAYER ( "," LAYER )*
  bool ParseLayers(BlockProperty& property) {
    bool ok = true;
    while (true) {
      Layer layer;
      if (ParseLayer(layer)) {
        property.layers.push_back(std::move(layer));
      } else {
        ok = false;
        SkipTo({TokenKind::kComma});
        if (At(TokenKind::kRParen) || At(TokenKind::kRBracket) ||
            At(TokenKind::kRBrace)) {
          Advance();
          SkipTo({TokenKind::kComma});
        }
      }
      if (At(TokenKind::kComma)) {
        Advance();
        continue;
      }
      if (At(TokenKind::kSemicolon) || At(TokenKind::kEnd)) break;
      if (ok) {
        ErrorExpected(StrCat("',' between layers or ';' at the end of '",
                             property.block, ":layers'"),
                      /*after_previous=*/true);
      }
      return false;
    }
    return ok;
  }

  // LAYER ::= name "(" ( ARGUMENT ( "," ARGUMENT )* )? ")"
  bool ParseLayer(Layer& layer) {
    if (!At(TokenKind::kName)) {
      ErrorExpected("a layer such as 'relu()' or 'matmul(w)'");
      return false;
    }
    const Token& op = Advance();
    layer.op = std::string(op.text);
    layer.op_range = op.range;
    if (!At(TokenKind::kLParen)) {
      ErrorExpected(StrCat("'(' after the operator '", op.text, "' (write '",
                           op.text, "()' for no arguments)"),
                    /*after_previous=*/true);
      return false;
    }
    Advance();
    bool ok = true;
    if (!At(TokenKind::kRParen)) {
      while (true) {
        Argument argument;
        if (ParseArgument(argument)) {
          layer.args.push_back(std::move(argument));
        } else {
          ok = false;
          SkipInArguments(/*to_close=*/false);
        }
        if (At(TokenKind::kComma)) {
          Advance();
          continue;
        }
        break;
      }
    }
    if (!At(TokenKind::kRParen)) {
      if (ok) {
        ErrorExpected(StrCat("',' or ')' in the arguments of '", layer.op, "'"),
                      /*after_previous=*/At(TokenKind::kSemicolon) ||
                          At(TokenKind::kEnd));
      }
      // Recover after this layer's ')', so the rest of its arguments are
      // not mistaken for layers.
      SkipInArguments(/*to_close=*/true);
      if (At(TokenKind::kRParen)) Advance();
      return false;
    }
    layer.range = SourceRange::Cover(layer.op_range, Advance().range);
    return ok;
  }

  // ARGUMENT ::= VALUE | name "=" VALUE
  bool ParseArgument(Argument& argument) {
    if (At(TokenKind::kName) && Peek(1).kind == TokenKind::kEquals) {
      const Token& key = Advance();
      argument.key = std::string(key.text);
      argument.key_range = key.range;
      Advance();  // '='
      if (!ParseValueExpected(argument.value,
                              StrCat("a value after '", key.text, "='"))) {
        return false;
      }
      argument.range = SourceRange::Cover(key.range, argument.value.range);
      return true;
    }
    if (!ParseValueExpected(argument.value, "an argument")) return false;
    argument.range = argument.value.range;
    return true;
  }

  // ---- values -------------------------------------------------------------

  bool StartsValue() const {
    TokenKind kind = Peek().kind;
    return kind == TokenKind::kName || kind == TokenKind::kNumber ||
           kind == TokenKind::kLBracket || kind == TokenKind::kLBrace;
  }

  bool ParseValueExpected(Value& value, const std::string& what,
                          int depth = 0) {
    if (!StartsValue()) {
      ErrorExpected(what);
      return false;
    }
    return ParseValue(value, depth);
  }

  // VALUE ::= name | number | LIST | MAP
  // LIST  ::= "[" ( VALUE ( "," VALUE )* )? "]"
  // MAP   ::= "{" ( ITEM ( "," ITEM )* )? "}"
  bool ParseValue(Value& value, int depth) {
    if (depth > kMaxNesting) {
      diagnostics_.Error(
          Peek().range,
          StrCat("lists and maps are nested more than ", kMaxNesting, " deep"));
      return false;
    }
    const Token& token = Peek();
    switch (token.kind) {
      case TokenKind::kName:
        value = NameValue(Advance());
        return true;
      case TokenKind::kNumber:
        value = NumberValue(Advance());
        return true;
      case TokenKind::kLBracket:
        return ParseList(value, depth);
      case TokenKind::kLBrace:
        return ParseMap(value, depth);
      default:
        ErrorExpected("a value (a name, a number, a [list] or a {map})");
        return false;
    }
  }

  bool ParseList(Value& value, int depth) {
    value.kind = Value::Kind::kList;
    const Token& open = Advance();
    if (!At(TokenKind::kRBracket)) {
      while (true) {
        Value item;
        if (!ParseValueExpected(item, "a list item", depth + 1)) return false;
        value.items.push_back(std::move(item));
        if (At(TokenKind::kComma)) {
          Advance();
          continue;
        }
        break;
      }
    }
    if (!At(TokenKind::kRBracket)) {
      ErrorExpected("',' or ']' in the list");
      return false;
    }
    value.range = SourceRange::Cover(open.range, Advance().range);
    return true;
  }

  // ITEM ::= name ( ":" VALUE )?
  bool ParseMap(Value& value, int depth) {
    value.kind = Value::Kind::kMap;
    const Token& open = Advance();
    if (!At(TokenKind::kRBrace)) {
      while (true) {
        if (!At(TokenKind::kName)) {
          ErrorExpected("a dimension name in the map");
          return false;
        }
        MapItem item;
        const Token& key = Advance();
        item.key = std::string(key.text);
        item.key_range = key.range;
        if (At(TokenKind::kColon)) {
          Advance();
          if (!StartsValue()) {
            ErrorExpected(StrCat("a value after '", key.text, ":'"));
            return false;
          }
          if (!ParseValue(item.value, depth + 1)) return false;
        }
        value.entries.push_back(std::move(item));
        if (At(TokenKind::kComma)) {
          Advance();
          continue;
        }
        break;
      }
    }
    if (!At(TokenKind::kRBrace)) {
      ErrorExpected("',' or '}' in the map");
      return false;
    }
    value.range = SourceRange::Cover(open.range, Advance().range);
    return true;
  }

  static Value NameValue(const Token& token) {
    Value value;
    value.kind = Value::Kind::kName;
    value.text = std::string(token.text);
    value.range = token.range;
    return value;
  }

  static Value NumberValue(const Token& token) {
    Value value;
    value.kind = Value::Kind::kNumber;
    value.text = std::string(token.text);
    value.range = token.range;
    std::string spelling = value.text;
    value.number = std::strtod(spelling.c_str(), nullptr);
    // Integer spellings are read exactly (int64 values beyond 2^53).
    std::string_view digits = spelling;
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    int64_t exact;
    auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), exact);
    if (error == std::errc() && end == digits.data() + digits.size()) {
      value.integral = true;
      value.integer = exact;
    } else if (std::isfinite(value.number) &&
               value.number == std::trunc(value.number) &&
               std::fabs(value.number) < 9.2e18) {
      value.integral = true;
      value.integer = static_cast<int64_t>(value.number);
    }
    return value;
  }

  static std::string DescribeValue(const Value& value) {
    switch (value.kind) {
      case Value::Kind::kName:
        return StrCat("name '", value.text, "'");
      case Value::Kind::kNumber:
        return value.text;
      case Value::Kind::kList:
        return "a list";
      case Value::Kind::kMap:
        return "a map";
      case Value::Kind::kNone:
        return "nothing";
    }
    return "?";
  }

  std::vector<Token> tokens_;
  Diagnostics& diagnostics_;
  size_t pos_ = 0;
};

}  // namespace

const char* PropertyName(PropertyKind kind) {
  switch (kind) {
    case PropertyKind::kName:
      return "name";
    case PropertyKind::kLoss:
      return "loss";
    case PropertyKind::kAlpha:
      return "alpha";
    case PropertyKind::kDelta:
      return "delta";
    case PropertyKind::kGamma:
      return "gamma";
    case PropertyKind::kInput:
      return "input";
    case PropertyKind::kOutput:
      return "output";
    case PropertyKind::kLayers:
      return "layers";
  }
  return "?";
}

Module Parse(const SourceFile& file, Diagnostics& diagnostics) {
  return Parser(Tokenize(file, diagnostics), diagnostics).ParseModule();
}

}  // namespace webnnm::lang
