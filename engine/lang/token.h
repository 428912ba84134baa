// Tokens of the WebNNM model language.
//
// The lexer turns model text into these; each token keeps its source range,
// so every later error can point at what the user wrote.
#ifndef WEBNNM_ENGINE_LANG_TOKEN_H_
#define WEBNNM_ENGINE_LANG_TOKEN_H_

#include <string>
#include <string_view>

#include "engine/base/source.h"

namespace webnnm::lang {

enum class TokenKind {
  kName,    // [a-zA-Z_][a-zA-Z0-9_-]*
  kNumber,  // [+-]? (digits ("." digits*)? | "." digits) ([eE] [+-]? digits)?
  kColon,   // :
  kSemicolon,  // ;
  kComma,      // ,
  kEquals,     // =
  kLParen,     // (
  kRParen,     // )
  kLBracket,   // [
  kRBracket,   // ]
  kLBrace,     // {
  kRBrace,     // }
  kEnd,        // end of the file
  kInvalid,    // a character no rule accepts (already diagnosed)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // points into the SourceFile's text
  SourceRange range;
};

// How a token is named in messages: "';'", "name 'foo'", "number 3",
// "end of file".
std::string Describe(const Token& token);

// How a token kind is named in "expected ..." messages: "';'", "a name".
const char* DescribeKind(TokenKind kind);

}  // namespace webnnm::lang

#endif  // WEBNNM_ENGINE_LANG_TOKEN_H_
