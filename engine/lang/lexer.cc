#include "engine/lang/lexer.h"

#include <cstdint>

#include "absl/strings/str_format.h"
#include "engine/base/strings.h"

namespace webnnm::lang {
namespace {

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '-';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Decodes the UTF-8 character at text[i] for messages; `length` receives its
// byte length (1 for an invalid byte).
std::string DescribeCharacter(std::string_view text, size_t i, int& length) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  length = 1;
  uint32_t code = c;
  if (c >= 0xC0) {
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    code = c & (0x3F >> extra);
    int n = 0;
    while (n < extra && i + 1 + n < text.size() &&
           (static_cast<unsigned char>(text[i + 1 + n]) & 0xC0) == 0x80) {
      code = (code << 6) | (text[i + 1 + n] & 0x3F);
      ++n;
    }
    if (n == extra) {
      length = 1 + extra;
      return absl::StrFormat("'%s' (U+%04X)", text.substr(i, length), code);
    }
    return absl::StrFormat("byte 0x%02X (not UTF-8)", c);
  }
  if (c >= 0x80) return absl::StrFormat("byte 0x%02X (not UTF-8)", c);
  if (c >= 0x21 && c < 0x7F) return absl::StrFormat("'%c'", c);
  return absl::StrFormat("U+%04X", code);
}

class Lexer {
 public:
  Lexer(const SourceFile& file, Diagnostics& diagnostics)
      : text_(file.text()), diagnostics_(diagnostics) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpaceAndComments();
      if (pos_ >= text_.size()) break;
      tokens.push_back(Next());
    }
    uint32_t end = static_cast<uint32_t>(text_.size());
    tokens.push_back({TokenKind::kEnd, std::string_view(), {end, end}});
    return tokens;
  }

 private:
  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n' &&
               text_[pos_] != '\r') {
          ++pos_;
        }
      } else {
        break;
      }
    }
  }

  Token Make(TokenKind kind, size_t begin) {
    return {kind,
            std::string_view(text_).substr(begin, pos_ - begin),
            {static_cast<uint32_t>(begin), static_cast<uint32_t>(pos_)}};
  }

  Token Next() {
    size_t begin = pos_;
    char c = text_[pos_];
    if (IsNameStart(c)) {
      while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
      return Make(TokenKind::kName, begin);
    }
    if (IsDigit(c) || c == '.' || c == '+' || c == '-') return Number();
    TokenKind kind;
    switch (c) {
      case ':':
        kind = TokenKind::kColon;
        break;
      case ';':
        kind = TokenKind::kSemicolon;
        break;
      case ',':
        kind = TokenKind::kComma;
        break;
      case '=':
        kind = TokenKind::kEquals;
        break;
      case '(':
        kind = TokenKind::kLParen;
        break;
      case ')':
        kind = TokenKind::kRParen;
        break;
      case '[':
        kind = TokenKind::kLBracket;
        break;
      case ']':
        kind = TokenKind::kRBracket;
        break;
      case '{':
        kind = TokenKind::kLBrace;
        break;
      case '}':
        kind = TokenKind::kRBrace;
        break;
      default: {
        int length;
        std::string what = DescribeCharacter(text_, pos_, length);
        pos_ += length;
        Token token = Make(TokenKind::kInvalid, begin);
        diagnostics_.Error(token.range, StrCat("unexpected character ", what));
        return token;
      }
    }
    ++pos_;
    return Make(kind, begin);
  }

  // number ::= [+-]? ( digit+ ( "." digit* )? | "." digit+ )
  //            ( [eE] [+-]? digit+ )?
  Token Number() {
    size_t begin = pos_;
    if (text_[pos_] == '+' || text_[pos_] == '-') ++pos_;
    size_t digits = 0;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_, ++digits;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_, ++digits;
    }
    if (digits == 0) {
      Token token = Make(TokenKind::kInvalid, begin);
      diagnostics_.Error(token.range,
                         StrCat("expected a number after '", token.text, "'"));
      return token;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t exponent_at = pos_;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      size_t exponent_digits = 0;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) {
        ++pos_, ++exponent_digits;
      }
      if (exponent_digits == 0) {
        pos_ = std::max(pos_, exponent_at + 1);
        while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
        Token token = Make(TokenKind::kInvalid, begin);
        diagnostics_.Error(token.range,
                           StrCat("malformed number '", token.text,
                                  "': the exponent has no digits"));
        return token;
      }
    }
    if (pos_ < text_.size() &&
        (IsNameStart(text_[pos_]) || text_[pos_] == '.')) {
      while (pos_ < text_.size() &&
             (IsNameChar(text_[pos_]) || text_[pos_] == '.')) {
        ++pos_;
      }
      Token token = Make(TokenKind::kInvalid, begin);
      diagnostics_.Error(token.range,
                         StrCat("malformed number '", token.text, "'"));
      return token;
    }
    return Make(TokenKind::kNumber, begin);
  }

  std::string_view text_;
  Diagnostics& diagnostics_;
  size_t pos_ = 0;
};

}  // namespace

std::string Describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kName:
      return StrCat("name '", token.text, "'");
    case TokenKind::kNumber:
      return StrCat("number ", token.text);
    case TokenKind::kEnd:
      return "end of file";
    case TokenKind::kInvalid:
      return StrCat("'", token.text, "'");
    default:
      return StrCat("'", token.text, "'");
  }
}

const char* DescribeKind(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
      return "a name";
    case TokenKind::kNumber:
      return "a number";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kSemicolon:
      return "';'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kEquals:
      return "'='";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kEnd:
      return "end of file";
    case TokenKind::kInvalid:
      return "an invalid token";
  }
  return "?";
}

std::vector<Token> Tokenize(const SourceFile& file, Diagnostics& diagnostics) {
  return Lexer(file, diagnostics).Run();
}

}  // namespace webnnm::lang
