// Parser: the recursive-descent parser behind lang::Parse (parser.h),
// split across parser.cc (statements: blocks, constants, shapes) and
// parser_layers.cc (layers, arguments and values). Each parsing function
// carries its grammar rule as a comment. Internal to engine/lang.
#ifndef WEBNNM_ENGINE_LANG_PARSER_INTERNAL_H_
#define WEBNNM_ENGINE_LANG_PARSER_INTERNAL_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/lang/ast.h"
#include "engine/lang/token.h"

namespace webnnm::lang {

inline constexpr int kMaxNesting = 64;  // lists and maps inside each other

// Parsing functions return false after they have reported an error; the
// caller decides where to recover.
class Parser {
 public:
  Parser(std::vector<Token> tokens, Diagnostics& diagnostics)
      : tokens_(std::move(tokens)), diagnostics_(diagnostics) {}

  // Module ::= ( ( CONSTANT | BLOCK ) ";" )*
  Module ParseModule();

 private:
  // ---- token access -------------------------------------------------------

  const Token& Peek(int ahead = 0) const;
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  const Token& Advance();
  // The end of the previous token: where a missing ';' or ')' belongs.
  SourceRange AfterPrevious() const;

  // Reports "expected <what>, found <token>" at the current token (or just
  // after the previous token when a terminator is missing).
  void ErrorExpected(const std::string& what, bool after_previous = false);

  bool Expect(TokenKind kind, const std::string& context,
              bool after_previous = false);

  // Skips tokens up to (not past) one of `stops` at nesting depth 0, or an
  // unmatched closing bracket, or ';' (which ends every statement), or the
  // end of the file.
  void SkipTo(std::initializer_list<TokenKind> stops);
  // Skips the rest of a bad argument, up to the ',' or ')' of the argument
  // list (or, with `to_close`, up to its ')' only); closers of lists and
  // maps left open inside it are skipped too.
  void SkipInArguments(bool to_close);

  void SkipPast(std::initializer_list<TokenKind> stops);

  // ---- statements ---------------------------------------------------------

  bool ParseStatement(Module& module);

  // BLOCK ::= name ":" ( "name" name | "loss" name | "alpha" number
  //         | "delta" number | "gamma" number
  //         | "input" datatype? ( "shape" "=" )? SHAPE
  //         | "output" datatype? ( "shape" "=" )? SHAPE
  //         | "layers" LAYER ( "," LAYER )* ) ";"
  bool ParseBlockProperty(Module& module);

  static std::optional<PropertyKind> ParsePropertyKind(std::string_view name);

  bool ParseNameProperty(BlockProperty& property);

  bool ParseNumberProperty(BlockProperty& property);

  // datatype? ( "shape" "=" )? SHAPE
  bool ParseTensorProperty(BlockProperty& property);

  bool ParseDataType(std::string& out, SourceRange& range,
                     const std::string& context);

  // CONSTANT ::= name datatype? number
  //            | name datatype? "shape" "=" SHAPE "data" "=" LIST
  bool ParseConstant(Module& module);

  // SHAPE ::= "[" ( number ( "," number )* )? "]"
  //         | "{" name ( ":" number )? ( "," name ( ":" number )? )* "}"
  bool ParseShape(ShapeSpec& shape, const std::string& context);

  bool CheckDimSize(const Value& value);

  // ---- layers -------------------------------------------------------------

  // "layers" LAYER ( "," LAYER )*
  bool ParseLayers(BlockProperty& property);

  // LAYER ::= name "(" ( ARGUMENT ( "," ARGUMENT )* )? ")"
  bool ParseLayer(Layer& layer);

  // ARGUMENT ::= VALUE | name "=" VALUE
  bool ParseArgument(Argument& argument);

  // ---- values -------------------------------------------------------------

  bool StartsValue() const;

  bool ParseValueExpected(Value& value, const std::string& what, int depth = 0);

  // VALUE ::= name | number | LIST | MAP
  // LIST  ::= "[" ( VALUE ( "," VALUE )* )? "]"
  // MAP   ::= "{" ( ITEM ( "," ITEM )* )? "}"
  bool ParseValue(Value& value, int depth);

  bool ParseList(Value& value, int depth);

  // ITEM ::= name ( ":" VALUE )?
  bool ParseMap(Value& value, int depth);

  static Value NameValue(const Token& token);

  static Value NumberValue(const Token& token);

  static std::string DescribeValue(const Value& value);

  std::vector<Token> tokens_;
  Diagnostics& diagnostics_;
  size_t pos_ = 0;
};

}  // namespace webnnm::lang

#endif  // WEBNNM_ENGINE_LANG_PARSER_INTERNAL_H_
