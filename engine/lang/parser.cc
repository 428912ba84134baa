#include "engine/lang/parser.h"

#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/ir/dtype.h"
#include "engine/lang/lexer.h"
#include "engine/lang/parser_internal.h"

namespace webnnm::lang {
namespace {

const std::vector<std::string>& PropertyNames() {
  static const auto* names = new std::vector<std::string>{
      "name", "loss", "alpha", "delta", "gamma", "input", "output", "layers"};
  return *names;
}

// The offset of the first byte that no model text holds (NUL, or a control
// character other than tab, line feed, form feed and carriage return) when
// the file looks binary: such a byte in its first 4 KiB, or invalid UTF-8
// there. Text with a stray control character further on is left to the
// lexer, which reports it where it is.
std::optional<size_t> BinaryOffset(std::string_view text) {
  const size_t n = std::min<size_t>(text.size(), 4096);
  size_t i = 0;
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') {
      return i;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    if (c >= 0xC2 && c <= 0xDF) length = 2;
    if (c >= 0xE0 && c <= 0xEF) length = 3;
    if (c >= 0xF0 && c <= 0xF4) length = 4;
    if (length == 0) return i;
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return i;
    }
    i += length;
  }
  return std::nullopt;
}

// Errors shown of a file that is no model (see Parse).
constexpr int kErrorsShown = 5;

}  // namespace

Module Parser::ParseModule() {
  Module module;
  while (!At(TokenKind::kEnd)) {
    if (!ParseStatement(module)) SkipPast({TokenKind::kSemicolon});
  }
  return module;
}

const Token& Parser::Peek(int ahead) const {
  size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

const Token& Parser::Advance() {
  const Token& token = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

SourceRange Parser::AfterPrevious() const {
  uint32_t end = pos_ > 0 ? tokens_[pos_ - 1].range.end : 0;
  return {end, end};
}

void Parser::ErrorExpected(const std::string& what, bool after_previous) {
  const Token& found = Peek();
  if (found.kind == TokenKind::kInvalid) return;  // the lexer reported it
  SourceRange at = after_previous && pos_ > 0 ? AfterPrevious() : found.range;
  diagnostics_.Error(at,
                     StrCat("expected ", what, ", found ", Describe(found)));
}

bool Parser::Expect(TokenKind kind, const std::string& context,
                    bool after_previous) {
  if (At(kind)) {
    Advance();
    return true;
  }
  ErrorExpected(StrCat(DescribeKind(kind), " ", context), after_previous);
  return false;
}

void Parser::SkipTo(std::initializer_list<TokenKind> stops) {
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

void Parser::SkipInArguments(bool to_close) {
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

void Parser::SkipPast(std::initializer_list<TokenKind> stops) {
  SkipTo(stops);
  // An unmatched closer at depth 0 belongs to nothing here: drop it too.
  while (!At(TokenKind::kEnd) && !At(TokenKind::kSemicolon)) Advance();
  if (At(TokenKind::kSemicolon)) Advance();
}

bool Parser::ParseStatement(Module& module) {
  if (!At(TokenKind::kName)) {
    ErrorExpected(
        "a block property (such as 'model:layers') or a constant "
        "declaration");
    return false;
  }
  if (Peek(1).kind == TokenKind::kColon) return ParseBlockProperty(module);
  return ParseConstant(module);
}

bool Parser::ParseBlockProperty(Module& module) {
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

std::optional<PropertyKind> Parser::ParsePropertyKind(std::string_view name) {
  static constexpr PropertyKind kinds[] = {
      PropertyKind::kName,   PropertyKind::kLoss,  PropertyKind::kAlpha,
      PropertyKind::kDelta,  PropertyKind::kGamma, PropertyKind::kInput,
      PropertyKind::kOutput, PropertyKind::kLayers};
  for (PropertyKind kind : kinds) {
    if (name == PropertyName(kind)) return kind;
  }
  return std::nullopt;
}

bool Parser::ParseNameProperty(BlockProperty& property) {
  if (!At(TokenKind::kName)) {
    ErrorExpected(StrCat("a name after '", property.block, ":",
                         PropertyName(property.kind), "'"));
    return false;
  }
  property.value = NameValue(Advance());
  return true;
}

bool Parser::ParseNumberProperty(BlockProperty& property) {
  if (!At(TokenKind::kNumber)) {
    ErrorExpected(StrCat("a number after '", property.block, ":",
                         PropertyName(property.kind), "'"));
    return false;
  }
  property.value = NumberValue(Advance());
  return true;
}

bool Parser::ParseTensorProperty(BlockProperty& property) {
  std::string context =
      StrCat("after '", property.block, ":", PropertyName(property.kind), "'");
  if (At(TokenKind::kName) && Peek().text != "shape") {
    if (!ParseDataType(property.data_type, property.data_type_range, context)) {
      return false;
    }
  }
  if (At(TokenKind::kName) && Peek().text == "shape") {
    Advance();
    if (!Expect(TokenKind::kEquals, "after 'shape'")) return false;
  }
  return ParseShape(property.shape, context);
}

bool Parser::ParseDataType(std::string& out, SourceRange& range,
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

bool Parser::ParseConstant(Module& module) {
  ConstantDecl constant;
  const Token& name = Advance();
  constant.name = std::string(name.text);
  constant.name_range = name.range;
  std::string context =
      StrCat("in the declaration of constant '", constant.name, "'");
  if (At(TokenKind::kName) && Peek().text != "shape" && Peek().text != "data") {
    if (!ir::ParseDType(Peek().text)) {
      const Token& found = Peek();
      diagnostics_.Error(
          found.range,
          StrCat("expected ':' after the block name '", constant.name,
                 "' or a data type, number or 'shape=' ", context, ", found ",
                 Describe(found), DidYouMean(found.text, ir::AllDTypeNames())));
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

bool Parser::ParseShape(ShapeSpec& shape, const std::string& context) {
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

bool Parser::CheckDimSize(const Value& value) {
  if (!value.is_number() || !value.integral || value.integer <= 0) {
    diagnostics_.Error(
        value.range,
        StrCat("a dimension size must be a positive integer, found ",
               DescribeValue(value)));
    return false;
  }
  return true;
}

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
  if (std::optional<size_t> at = BinaryOffset(file.text())) {
    const uint32_t offset = static_cast<uint32_t>(*at);
    diagnostics.Error(
        {offset, offset + 1},
        StrCat("this does not look like a model file: it holds binary data "
               "(byte 0x",
               absl::Hex(static_cast<unsigned char>(file.text()[*at]),
                         absl::kZeroPad2),
               "); a model is UTF-8 text such as 'model:input shape=[4];'"));
    return Module{};
  }
  // Parsed against a scratch list first: text that yields many errors and
  // not one statement is no model, and only its first errors are shown.
  Diagnostics scratch(diagnostics.shared_file());
  Module module = Parser(Tokenize(file, scratch), scratch).ParseModule();
  const bool nothing_read =
      module.constants.empty() && module.properties.empty();
  const bool garbage = nothing_read && scratch.error_count() > kErrorsShown;
  int shown = 0;
  for (const Diagnostic& d : scratch.all()) {
    if (garbage) {
      if (d.severity != Severity::kError) continue;
      if (shown == kErrorsShown) break;
      ++shown;
    }
    if (d.severity == Severity::kError) {
      diagnostics.Error(d.range, d.message);
    } else {
      diagnostics.Warning(d.range, d.message);
    }
  }
  if (garbage) {
    diagnostics.Error(
        {0, 0},
        StrCat("this does not look like a model file: ", scratch.error_count(),
               " errors and not one statement could be read; the first ",
               kErrorsShown,
               " are above (a model is statements such as "
               "'model:input shape=[4];')"));
  }
  return module;
}

}  // namespace webnnm::lang
