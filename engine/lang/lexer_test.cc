// The lexer: token kinds, names, numbers in every grammar form, malformed
// numbers, unexpected characters, comments, the trailing kEnd and ranges.
#include "engine/lang/lexer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace webnnm::lang {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Lexed {
  std::shared_ptr<const SourceFile> file;
  Diagnostics diagnostics;
  std::vector<Token> tokens;

  std::vector<TokenKind> kinds() const {
    std::vector<TokenKind> out;
    for (const Token& token : tokens) out.push_back(token.kind);
    return out;
  }
  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (const Token& token : tokens) out.emplace_back(token.text);
    return out;
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diagnostics.all()) out.push_back(d.message);
    return out;
  }
};

Lexed Lex(std::string text) {
  auto file = std::make_shared<const SourceFile>("m.wnm", std::move(text));
  Lexed lexed{file, Diagnostics(file), {}};
  lexed.tokens = Tokenize(*file, lexed.diagnostics);
  return lexed;
}

TEST(Lexer, Punctuation) {
  Lexed lexed = Lex(": ; , = ( ) [ ] { }");
  EXPECT_THAT(
      lexed.kinds(),
      ElementsAre(TokenKind::kColon, TokenKind::kSemicolon, TokenKind::kComma,
                  TokenKind::kEquals, TokenKind::kLParen, TokenKind::kRParen,
                  TokenKind::kLBracket, TokenKind::kRBracket,
                  TokenKind::kLBrace, TokenKind::kRBrace, TokenKind::kEnd));
  EXPECT_THAT(lexed.texts(), ElementsAre(":", ";", ",", "=", "(", ")", "[", "]",
                                         "{", "}", ""));
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, PunctuationNeedsNoSpaces) {
  Lexed lexed = Lex("model:layers dense(shape=[10]),f({a:1});");
  EXPECT_THAT(lexed.texts(),
              ElementsAre("model", ":", "layers", "dense", "(", "shape", "=",
                          "[", "10", "]", ")", ",", "f", "(", "{", "a", ":",
                          "1", "}", ")", ";", ""));
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, EveryKindInOneStatement) {
  Lexed lexed = Lex("m:layers f(x=[1], y={a}); @");
  EXPECT_THAT(
      lexed.kinds(),
      ElementsAre(TokenKind::kName, TokenKind::kColon, TokenKind::kName,
                  TokenKind::kName, TokenKind::kLParen, TokenKind::kName,
                  TokenKind::kEquals, TokenKind::kLBracket, TokenKind::kNumber,
                  TokenKind::kRBracket, TokenKind::kComma, TokenKind::kName,
                  TokenKind::kEquals, TokenKind::kLBrace, TokenKind::kName,
                  TokenKind::kRBrace, TokenKind::kRParen, TokenKind::kSemicolon,
                  TokenKind::kInvalid, TokenKind::kEnd));
}

TEST(Lexer, NamesWithHyphensUnderscoresAndDigits) {
  Lexed lexed = Lex("basic-model _x my_block X9 relu-6 a-- b_-_c");
  EXPECT_THAT(lexed.texts(), ElementsAre("basic-model", "_x", "my_block", "X9",
                                         "relu-6", "a--", "b_-_c", ""));
  for (size_t i = 0; i + 1 < lexed.tokens.size(); ++i) {
    EXPECT_EQ(lexed.tokens[i].kind, TokenKind::kName) << i;
  }
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, NameStopsAtPunctuation) {
  Lexed lexed = Lex("a-b:c=d");
  EXPECT_THAT(lexed.texts(), ElementsAre("a-b", ":", "c", "=", "d", ""));
}

TEST(Lexer, NumbersInEveryGrammarForm) {
  Lexed lexed =
      Lex("42 -3 +1.5 .5 3. 1e-5 6.02e23 1E+2 -.5e3 0 007 +0.0e0 2.5E-10");
  EXPECT_THAT(lexed.texts(), ElementsAre("42", "-3", "+1.5", ".5", "3.", "1e-5",
                                         "6.02e23", "1E+2", "-.5e3", "0", "007",
                                         "+0.0e0", "2.5E-10", ""));
  for (size_t i = 0; i + 1 < lexed.tokens.size(); ++i) {
    EXPECT_EQ(lexed.tokens[i].kind, TokenKind::kNumber) << lexed.tokens[i].text;
  }
  EXPECT_FALSE(lexed.diagnostics.has_errors()) << lexed.diagnostics.RenderAll();
}

TEST(Lexer, NumbersEndAtPunctuation) {
  Lexed lexed = Lex("[1,-2.,.5];3)");
  EXPECT_THAT(lexed.texts(), ElementsAre("[", "1", ",", "-2.", ",", ".5", "]",
                                         ";", "3", ")", ""));
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, ExponentWithoutDigitsIsMalformed) {
  Lexed lexed = Lex("1e");
  EXPECT_THAT(lexed.kinds(), ElementsAre(TokenKind::kInvalid, TokenKind::kEnd));
  EXPECT_THAT(lexed.messages(),
              ElementsAre("malformed number '1e': the exponent has no digits"));
  EXPECT_EQ(lexed.diagnostics.all()[0].range, (SourceRange{0, 2}));
}

TEST(Lexer, ExponentSignWithoutDigitsIsMalformed) {
  Lexed lexed = Lex("2.5e+;");
  EXPECT_THAT(lexed.texts(), ElementsAre("2.5e+", ";", ""));
  EXPECT_EQ(lexed.tokens[0].kind, TokenKind::kInvalid);
  ASSERT_EQ(lexed.diagnostics.all().size(), 1u);
  EXPECT_THAT(lexed.messages()[0], HasSubstr("'2.5e+'"));
  EXPECT_THAT(lexed.messages()[0], HasSubstr("exponent has no digits"));
}

TEST(Lexer, NumberRunningIntoLettersIsMalformed) {
  Lexed lexed = Lex("3x;");
  EXPECT_THAT(lexed.texts(), ElementsAre("3x", ";", ""));
  EXPECT_EQ(lexed.tokens[0].kind, TokenKind::kInvalid);
  EXPECT_THAT(lexed.messages(), ElementsAre("malformed number '3x'"));
  EXPECT_EQ(lexed.diagnostics.all()[0].range, (SourceRange{0, 2}));
}

TEST(Lexer, OtherMalformedNumbers) {
  for (const char* text : {"1.2.3", "3..", "1e5x", "1e5.0", "4units", "0x1F"}) {
    Lexed lexed = Lex(text);
    EXPECT_THAT(lexed.kinds(),
                ElementsAre(TokenKind::kInvalid, TokenKind::kEnd))
        << text;
    EXPECT_THAT(lexed.messages(),
                ElementsAre(std::string("malformed number '") + text + "'"))
        << text;
  }
}

TEST(Lexer, SignOrDotWithoutDigitsIsReported) {
  Lexed lexed = Lex("- + .");
  EXPECT_THAT(lexed.kinds(),
              ElementsAre(TokenKind::kInvalid, TokenKind::kInvalid,
                          TokenKind::kInvalid, TokenKind::kEnd));
  EXPECT_THAT(lexed.messages(), ElementsAre("expected a number after '-'",
                                            "expected a number after '+'",
                                            "expected a number after '.'"));
}

TEST(Lexer, LexingContinuesAfterAMalformedNumber) {
  Lexed lexed = Lex("a 1e b 3x c");
  EXPECT_THAT(lexed.kinds(), ElementsAre(TokenKind::kName, TokenKind::kInvalid,
                                         TokenKind::kName, TokenKind::kInvalid,
                                         TokenKind::kName, TokenKind::kEnd));
  EXPECT_EQ(lexed.diagnostics.error_count(), 2);
}

TEST(Lexer, UnexpectedAsciiCharacter) {
  Lexed lexed = Lex("a @ b");
  EXPECT_THAT(lexed.kinds(), ElementsAre(TokenKind::kName, TokenKind::kInvalid,
                                         TokenKind::kName, TokenKind::kEnd));
  EXPECT_EQ(lexed.tokens[1].text, "@");
  EXPECT_EQ(lexed.tokens[1].range, (SourceRange{2, 3}));
  EXPECT_THAT(lexed.messages(), ElementsAre("unexpected character '@'"));
  EXPECT_EQ(lexed.diagnostics.all()[0].range, (SourceRange{2, 3}));
}

TEST(Lexer, UnexpectedNonAsciiCharactersGiveTheirCodePoint) {
  // é (2 bytes), € (3 bytes), 😀 (4 bytes).
  Lexed lexed = Lex("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_THAT(lexed.kinds(),
              ElementsAre(TokenKind::kInvalid, TokenKind::kInvalid,
                          TokenKind::kInvalid, TokenKind::kEnd));
  EXPECT_THAT(lexed.messages(),
              ElementsAre("unexpected character '\xC3\xA9' (U+00E9)",
                          "unexpected character '\xE2\x82\xAC' (U+20AC)",
                          "unexpected character '\xF0\x9F\x98\x80' (U+1F600)"));
  // Each token covers the whole character.
  EXPECT_EQ(lexed.tokens[0].range, (SourceRange{0, 2}));
  EXPECT_EQ(lexed.tokens[1].range, (SourceRange{3, 6}));
  EXPECT_EQ(lexed.tokens[2].range, (SourceRange{7, 11}));
}

TEST(Lexer, ControlCharactersGiveTheirCodePoint) {
  Lexed lexed = Lex("\x01 \x7F \f");
  EXPECT_THAT(lexed.messages(), ElementsAre("unexpected character U+0001",
                                            "unexpected character U+007F",
                                            "unexpected character U+000C"));
}

TEST(Lexer, StrayBytesAreReportedOneByOne) {
  // A lone continuation byte, a truncated sequence and a byte that never
  // occurs in UTF-8: one kInvalid token and one error each.
  Lexed lexed = Lex("\x80 \xC3 \xFF");
  EXPECT_THAT(lexed.kinds(),
              ElementsAre(TokenKind::kInvalid, TokenKind::kInvalid,
                          TokenKind::kInvalid, TokenKind::kEnd));
  EXPECT_EQ(lexed.diagnostics.error_count(), 3);
  EXPECT_EQ(lexed.tokens[1].range, (SourceRange{2, 3}));
  EXPECT_THAT(lexed.messages()[0], HasSubstr("80"));
}

// A lead byte without its continuation bytes is described as that byte.
TEST(Lexer, StrayLeadBytesAreNotDescribedAsOtherCharacters) {
  Lexed lexed = Lex("\xC3 \xFF");
  ASSERT_EQ(lexed.messages().size(), 2u);
  EXPECT_THAT(lexed.messages()[0], HasSubstr("C3"));
  EXPECT_THAT(lexed.messages()[1], HasSubstr("FF"));
}

TEST(Lexer, EachUnexpectedCharacterIsReportedOnceAndLexingContinues) {
  Lexed lexed =
      Lex("a@@b\xC3\xA9"
          "c$;");
  EXPECT_THAT(lexed.texts(),
              ElementsAre("a", "@", "@", "b", "\xC3\xA9", "c", "$", ";", ""));
  EXPECT_THAT(
      lexed.messages(),
      ElementsAre("unexpected character '@'", "unexpected character '@'",
                  "unexpected character '\xC3\xA9' (U+00E9)",
                  "unexpected character '$'"));
  // Two '@' at different places are two diagnostics, not one deduplicated.
  EXPECT_NE(lexed.diagnostics.all()[0].range, lexed.diagnostics.all()[1].range);
  std::vector<LocatedDiagnostic> located = lexed.diagnostics.LocateAll();
  EXPECT_EQ(located[0].column, 2);
  EXPECT_EQ(located[1].column, 3);
  EXPECT_EQ(located[2].column, 5);
  EXPECT_EQ(located[3].column, 7);  // é counts as one column
}

TEST(Lexer, WhitespaceIsSkipped) {
  Lexed lexed = Lex(" \t\r\n a \r\n\tb\r");
  EXPECT_THAT(lexed.texts(), ElementsAre("a", "b", ""));
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, CommentsRunToTheEndOfTheLine) {
  Lexed lexed = Lex("a # ; ( @ \xC3\xA9 1e\nb#c\rc # at the end");
  EXPECT_THAT(lexed.texts(), ElementsAre("a", "b", "c", ""));
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, CommentOnlyFile) {
  Lexed lexed = Lex("# nothing here\n#\n   # still nothing");
  EXPECT_THAT(lexed.kinds(), ElementsAre(TokenKind::kEnd));
  EXPECT_FALSE(lexed.diagnostics.has_errors());
}

TEST(Lexer, HashEndsATokenAndStartsAComment) {
  Lexed lexed = Lex("relu# comment\n42#x");
  EXPECT_THAT(lexed.texts(), ElementsAre("relu", "42", ""));
}

TEST(Lexer, EmptyFileHasOnlyTheEndToken) {
  Lexed lexed = Lex("");
  ASSERT_EQ(lexed.tokens.size(), 1u);
  EXPECT_EQ(lexed.tokens[0].kind, TokenKind::kEnd);
  EXPECT_EQ(lexed.tokens[0].range, (SourceRange{0, 0}));
  EXPECT_TRUE(lexed.tokens[0].text.empty());
}

TEST(Lexer, EndTokenIsLastAndOnlyOnceAtTheEndOfTheText) {
  for (const char* text : {"a", "a ", "a;\n\n", "a # c", "@", "1e"}) {
    Lexed lexed = Lex(text);
    ASSERT_FALSE(lexed.tokens.empty()) << text;
    uint32_t size = static_cast<uint32_t>(std::string(text).size());
    EXPECT_EQ(lexed.tokens.back().kind, TokenKind::kEnd) << text;
    EXPECT_EQ(lexed.tokens.back().range, (SourceRange{size, size})) << text;
    int ends = 0;
    for (const Token& token : lexed.tokens) {
      if (token.kind == TokenKind::kEnd) ++ends;
    }
    EXPECT_EQ(ends, 1) << text;
  }
}

TEST(Lexer, TokenRangesAndTextsPointIntoTheSource) {
  Lexed lexed = Lex("model:layers relu(),\n  dense(units=10);");
  const std::string& source = lexed.file->text();
  for (const Token& token : lexed.tokens) {
    EXPECT_EQ(lexed.file->Slice(token.range), token.text);
    if (!token.text.empty()) {
      EXPECT_EQ(token.text.data(), source.data() + token.range.begin);
    }
  }
  // "dense" starts line 2, column 3.
  const Token& dense = lexed.tokens[7];
  ASSERT_EQ(dense.text, "dense");
  EXPECT_EQ(dense.range, (SourceRange{23, 28}));
  LineColumn at = lexed.file->Locate(dense.range.begin);
  EXPECT_EQ(at.line, 2);
  EXPECT_EQ(at.column, 3);
  EXPECT_EQ(lexed.tokens[9].text, "units");
  EXPECT_EQ(lexed.tokens[9].range, (SourceRange{29, 34}));
  EXPECT_EQ(lexed.tokens[11].text, "10");
  EXPECT_EQ(lexed.tokens[11].range, (SourceRange{35, 37}));
}

TEST(Lexer, SignedNumberRangeIncludesTheSign) {
  Lexed lexed = Lex("x -3.5e2");
  ASSERT_EQ(lexed.tokens.size(), 3u);
  EXPECT_EQ(lexed.tokens[1].range, (SourceRange{2, 8}));
}

TEST(Describe, Tokens) {
  Lexed lexed = Lex("foo 3.5 ; @");
  EXPECT_EQ(Describe(lexed.tokens[0]), "name 'foo'");
  EXPECT_EQ(Describe(lexed.tokens[1]), "number 3.5");
  EXPECT_EQ(Describe(lexed.tokens[2]), "';'");
  EXPECT_EQ(Describe(lexed.tokens[3]), "'@'");
  EXPECT_EQ(Describe(lexed.tokens[4]), "end of file");
}

TEST(Describe, Kinds) {
  EXPECT_STREQ(DescribeKind(TokenKind::kName), "a name");
  EXPECT_STREQ(DescribeKind(TokenKind::kNumber), "a number");
  EXPECT_STREQ(DescribeKind(TokenKind::kSemicolon), "';'");
  EXPECT_STREQ(DescribeKind(TokenKind::kColon), "':'");
  EXPECT_STREQ(DescribeKind(TokenKind::kComma), "','");
  EXPECT_STREQ(DescribeKind(TokenKind::kEquals), "'='");
  EXPECT_STREQ(DescribeKind(TokenKind::kLParen), "'('");
  EXPECT_STREQ(DescribeKind(TokenKind::kRParen), "')'");
  EXPECT_STREQ(DescribeKind(TokenKind::kLBracket), "'['");
  EXPECT_STREQ(DescribeKind(TokenKind::kRBracket), "']'");
  EXPECT_STREQ(DescribeKind(TokenKind::kLBrace), "'{'");
  EXPECT_STREQ(DescribeKind(TokenKind::kRBrace), "'}'");
  EXPECT_STREQ(DescribeKind(TokenKind::kEnd), "end of file");
  EXPECT_THAT(DescribeKind(TokenKind::kInvalid), HasSubstr("invalid"));
}

TEST(Lexer, ValidInputHasNoDiagnostics) {
  Lexed lexed =
      Lex("# the first example\n"
          "model:name basic-model;\n"
          "model:input float16 shape=[784];\n"
          "model:layers dense(shape=[128], activation=relu), "
          "dense(shape=[10], activation=softmax);\n"
          "pi float32 3.1415926;\n");
  EXPECT_THAT(lexed.messages(), IsEmpty());
  EXPECT_GT(lexed.tokens.size(), 30u);
}

}  // namespace
}  // namespace webnnm::lang
