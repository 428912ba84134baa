// Layers, arguments and values.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "engine/base/strings.h"
#include "engine/lang/parser_internal.h"

namespace webnnm::lang {

bool Parser::ParseLayers(BlockProperty& property) {
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

bool Parser::ParseLayer(Layer& layer) {
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
      ErrorExpected(
          StrCat("',' or ')' in the arguments of '", layer.op, "'"),
          /*after_previous=*/At(TokenKind::kSemicolon) || At(TokenKind::kEnd));
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

bool Parser::ParseArgument(Argument& argument) {
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

bool Parser::StartsValue() const {
  TokenKind kind = Peek().kind;
  return kind == TokenKind::kName || kind == TokenKind::kNumber ||
         kind == TokenKind::kLBracket || kind == TokenKind::kLBrace;
}

bool Parser::ParseValueExpected(Value& value, const std::string& what,
                                int depth) {
  if (!StartsValue()) {
    ErrorExpected(what);
    return false;
  }
  return ParseValue(value, depth);
}

bool Parser::ParseValue(Value& value, int depth) {
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

bool Parser::ParseList(Value& value, int depth) {
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

bool Parser::ParseMap(Value& value, int depth) {
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

Value Parser::NameValue(const Token& token) {
  Value value;
  value.kind = Value::Kind::kName;
  value.text = std::string(token.text);
  value.range = token.range;
  return value;
}

Value Parser::NumberValue(const Token& token) {
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

std::string Parser::DescribeValue(const Value& value) {
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

}  // namespace webnnm::lang
