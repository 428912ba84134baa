// Parser errors: each says what was expected and what was found, points at
// the right line and column, and the parser recovers at ';' between
// statements, at ',' between layers and at ',' or ')' inside an argument
// list.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/lang/parser.h"

namespace webnnm::lang {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::SizeIs;

struct Parsed {
  std::shared_ptr<const SourceFile> file;
  Diagnostics diagnostics;
  Module module;

  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diagnostics.all()) out.push_back(d.message);
    return out;
  }
  // (line, column) of every diagnostic, in order.
  std::vector<std::pair<int, int>> where() const {
    std::vector<std::pair<int, int>> out;
    for (const LocatedDiagnostic& d : diagnostics.LocateAll()) {
      out.emplace_back(d.line, d.column);
    }
    return out;
  }
};

Parsed ParseText(std::string text) {
  auto file = std::make_shared<const SourceFile>("m.wnm", std::move(text));
  Parsed parsed{file, Diagnostics(file), {}};
  parsed.module = Parse(*file, parsed.diagnostics);
  return parsed;
}

// ---- statements
// --------------------------------------------------------------

TEST(ParseError, MissingSemicolonIsReportedAfterThePreviousToken) {
  Parsed parsed = ParseText("model:name foo   \n  model:loss MSE;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ';' at the end of 'model:name', found "
                          "name 'model'"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 15)));  // just after "foo"
  // What parsed is kept.
  ASSERT_THAT(parsed.module.properties, SizeIs(1));
  EXPECT_TRUE(parsed.module.properties[0].value.is_name("foo"));
}

TEST(ParseError, MissingSemicolonAtTheEndOfTheFile) {
  Parsed parsed = ParseText("model:input [784]\n");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ';' at the end of 'model:input', found "
                          "end of file"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 18)));
}

TEST(ParseError, MissingSemicolonAfterAConstant) {
  Parsed parsed = ParseText("pi 3.14\nmodel:name x;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(AllOf(HasSubstr("expected ';' at the end of "
                                          "constant 'pi'"),
                                HasSubstr("found name 'model'"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 8)));
  ASSERT_THAT(parsed.module.constants, SizeIs(1));
}

TEST(ParseError, MissingSemicolonAfterLayers) {
  Parsed parsed = ParseText("model:layers relu()\nmodel:name x;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(AllOf(HasSubstr("expected ',' between layers or "
                                          "';' at the end of 'model:layers'"),
                                HasSubstr("found name 'model'"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 20)));
}

TEST(ParseError, StatementMustStartWithAName) {
  Parsed parsed = ParseText("3;\nmodel:name x;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(AllOf(HasSubstr("expected a block property"),
                                HasSubstr("or a constant declaration"),
                                HasSubstr("found number 3"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 1)));
  ASSERT_THAT(parsed.module.properties, SizeIs(1));
  EXPECT_TRUE(parsed.module.properties[0].value.is_name("x"));
}

TEST(ParseError, UnknownPropertySuggestsTheClosestOne) {
  Parsed parsed = ParseText("model:layer relu();\nmodel:inptu [2];\nm:foo x;");
  ASSERT_THAT(parsed.messages(), SizeIs(3));
  EXPECT_THAT(parsed.messages()[0],
              AllOf(HasSubstr("unknown block property 'layer'"),
                    HasSubstr("expected one of name, loss, alpha, delta, "
                              "gamma, input, output, layers"),
                    HasSubstr("did you mean 'layers'?")));
  EXPECT_THAT(parsed.messages()[1], HasSubstr("did you mean 'input'?"));
  EXPECT_THAT(parsed.messages()[2],
              AllOf(HasSubstr("unknown block property 'foo'"),
                    ::testing::Not(HasSubstr("did you mean"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 7), Pair(2, 7), Pair(3, 3)));
  EXPECT_THAT(parsed.module.properties, IsEmpty());
}

TEST(ParseError, MissingPropertyName) {
  Parsed parsed = ParseText("model:;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(AllOf(HasSubstr("expected a property name after "
                                          "'model:'"),
                                HasSubstr("found ';'"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 7)));
}

TEST(ParseError, WrongValueForAProperty) {
  Parsed parsed = ParseText("model:alpha x;\nmodel:name 3;\nmodel:input;");
  EXPECT_THAT(
      parsed.messages(),
      ElementsAre(
          "expected a number after 'model:alpha', found name 'x'",
          "expected a name after 'model:name', found number 3",
          AllOf(HasSubstr("expected a shape such as [784]"),
                HasSubstr("after 'model:input'"), HasSubstr("found ';'"))));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 13), Pair(2, 12), Pair(3, 12)));
}

TEST(ParseError, BadDataTypeOfAnInput) {
  Parsed parsed = ParseText("model:input flaot32 [784];");
  ASSERT_THAT(parsed.messages(), SizeIs(1));
  EXPECT_THAT(parsed.messages()[0],
              AllOf(HasSubstr("expected a data type or 'shape=' after "
                              "'model:input'"),
                    HasSubstr("found name 'flaot32'"),
                    HasSubstr("float16"),  // the list of data types
                    HasSubstr("did you mean 'float32'?")));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 13)));
}

TEST(ParseError, ShapeKeywordNeedsEquals) {
  Parsed parsed = ParseText("model:input float16 shape [784];");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected '=' after 'shape', found '['"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 27)));
}

// ---- constants
// ---------------------------------------------------------------

TEST(ParseError, BadDataTypeOfAConstant) {
  Parsed parsed = ParseText("w flaot16 3;");
  ASSERT_THAT(parsed.messages(), SizeIs(1));
  EXPECT_THAT(parsed.messages()[0],
              AllOf(HasSubstr("expected ':' after the block name 'w' or a "
                              "data type"),
                    HasSubstr("found name 'flaot16'"),
                    HasSubstr("did you mean 'float16'?")));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 3)));
  EXPECT_THAT(parsed.module.constants, IsEmpty());
}

TEST(ParseError, IncompleteConstants) {
  Parsed parsed = ParseText(
      "a shape=[2];\n"
      "b data=[1];\n"
      "c int32;\n"
      "d data=3 shape=[1];\n"
      "e shape=[1] shape=[1] data=[1];\n");
  EXPECT_THAT(
      parsed.messages(),
      ElementsAre("expected 'data=' after the shape, found ';'",
                  "expected 'shape=' before the data, found ';'",
                  "expected a number or 'shape=' in the declaration of "
                  "constant 'c', found ';'",
                  "expected '[' to start the data list, found number 3",
                  "'shape=' given twice in the declaration of constant 'e'"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 12), Pair(2, 11), Pair(3, 8),
                                          Pair(4, 8), Pair(5, 13)));
}

// ---- shapes
// ------------------------------------------------------------------

TEST(ParseError, DimensionSizesMustBePositiveIntegers) {
  Parsed parsed = ParseText("model:input [0, -2, 2.5, x, 3, [4]];");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("a dimension size must be a positive integer, "
                          "found 0",
                          "a dimension size must be a positive integer, "
                          "found -2",
                          "a dimension size must be a positive integer, "
                          "found 2.5",
                          "a dimension size must be a positive integer, "
                          "found name 'x'",
                          "a dimension size must be a positive integer, "
                          "found a list"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 14), Pair(1, 17), Pair(1, 21),
                                          Pair(1, 26), Pair(1, 32)));
}

TEST(ParseError, NamedDimensionSizesMustBePositiveIntegers) {
  Parsed parsed =
      ParseText("t shape={height: 0, width: 1.5, depth: 1e30} data=[1];");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(HasSubstr("found 0"), HasSubstr("found 1.5"),
                          HasSubstr("found 1e30")));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 18), Pair(1, 28), Pair(1, 40)));
  EXPECT_THAT(parsed.module.constants, IsEmpty());
}

TEST(ParseError, TrailingCommaInAList) {
  Parsed parsed = ParseText("model:input [1, 2,];");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected a list item, found ']'"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 19)));
}

// A braced shape needs at least one dimension ([] is the scalar).
TEST(ParseError, EmptyNamedShapeIsRejected) {
  Parsed parsed = ParseText("model:input shape={};");
  EXPECT_TRUE(parsed.diagnostics.has_errors());
}

// ---- layers and arguments
// ------------------------------------------------------

TEST(ParseError, LayerWithoutParenthesis) {
  Parsed parsed = ParseText("model:layers relu, tanh();");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected '(' after the operator 'relu' (write "
                          "'relu()' for no arguments), found ','"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 18)));
}

TEST(ParseError, LayerMustStartWithAName) {
  Parsed parsed = ParseText("model:layers relu(), (x);");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(AllOf(HasSubstr("expected a layer such as 'relu()'"),
                                HasSubstr("found '('"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 22)));
}

TEST(ParseError, MissingCommaBetweenLayers) {
  Parsed parsed = ParseText("model:layers relu() tanh();");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(AllOf(HasSubstr("expected ',' between layers"),
                                HasSubstr("found name 'tanh'"))));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 20)));
}

TEST(ParseError, BadArgument) {
  Parsed parsed = ParseText("model:layers dense(shape=, units=3), relu();");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected a value after 'shape=', found ','"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 26)));
}

TEST(ParseError, UnclosedArgumentList) {
  Parsed parsed = ParseText("model:layers dense(units=3;\nmodel:name x;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ',' or ')' in the arguments of 'dense', "
                          "found ';'"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 27)));  // after "3"
  ASSERT_THAT(parsed.module.properties, SizeIs(1));
  EXPECT_TRUE(parsed.module.properties[0].value.is_name("x"));
}

TEST(ParseError, MissingClosingParenthesisAfterAList) {
  // The example of engine/base/diagnostics.h.
  Parsed parsed = ParseText("model:layers dense(shape=[10];");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ',' or ')' in the arguments of 'dense', "
                          "found ';'"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 30)));
}

TEST(ParseError, UnclosedListInAnArgument) {
  Parsed parsed = ParseText("model:layers dense(shape=[10;\nmodel:name x;");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ',' or ']' in the list, found ';'"));
  EXPECT_THAT(parsed.where(), ElementsAre(Pair(1, 29)));
  EXPECT_THAT(parsed.module.properties, SizeIs(1));
}

TEST(ParseError, BadMaps) {
  Parsed parsed = ParseText(
      "m:layers f(x={1: 2});\n"
      "m:layers f(x={a: });\n"
      "m:layers f(x={a b});\n");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected a dimension name in the map, found "
                          "number 1",
                          "expected a value after 'a:', found '}'",
                          "expected ',' or '}' in the map, found name 'b'"));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 15), Pair(2, 18), Pair(3, 17)));
}

// ---- recovery
// ----------------------------------------------------------------

TEST(ParseRecovery, AtSemicolonsBetweenStatements) {
  Parsed parsed = ParseText(
      "model:layer relu();\n"
      "model:input flaot32 [2];\n"
      "w shape=[0] data=[1];\n"
      "model:layers relu(), sigmoid;\n"
      "model:name ok;\n");
  ASSERT_THAT(parsed.messages(), SizeIs(4));
  EXPECT_THAT(parsed.messages()[0], HasSubstr("unknown block property"));
  EXPECT_THAT(parsed.messages()[1], HasSubstr("found name 'flaot32'"));
  EXPECT_THAT(parsed.messages()[2], HasSubstr("found 0"));
  EXPECT_THAT(parsed.messages()[3],
              AllOf(HasSubstr("expected '(' after the operator 'sigmoid'"),
                    HasSubstr("found ';'")));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 7), Pair(2, 13), Pair(3, 10), Pair(4, 29)));
  ASSERT_THAT(parsed.module.properties, SizeIs(1));
  EXPECT_TRUE(parsed.module.properties[0].value.is_name("ok"));
}

TEST(ParseRecovery, AtCommasBetweenLayers) {
  Parsed parsed =
      ParseText("model:layers relu(), 3, tanh(x=), softmax(), [a], sig;");
  EXPECT_THAT(
      parsed.messages(),
      ElementsAre(
          AllOf(HasSubstr("expected a layer"), HasSubstr("found number 3")),
          "expected a value after 'x=', found ')'",
          AllOf(HasSubstr("expected a layer"), HasSubstr("found '['")),
          AllOf(HasSubstr("expected '(' after the operator 'sig'"),
                HasSubstr("found ';'"))));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 22), Pair(1, 32), Pair(1, 46), Pair(1, 54)));
}

TEST(ParseRecovery, AtCommasAndParenthesesInsideAnArgumentList) {
  Parsed parsed = ParseText("model:layers f(=, a=, ok, b=), g(c=);");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected an argument, found '='",
                          "expected a value after 'a=', found ','",
                          "expected a value after 'b=', found ')'",
                          "expected a value after 'c=', found ')'"));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 16), Pair(1, 21), Pair(1, 29), Pair(1, 36)));
}

// A missing ',' between two arguments is reported once: recovery skips to
// the layer's ')'.
TEST(ParseRecovery, MissingCommaBetweenArgumentsIsReportedOnce) {
  Parsed parsed =
      ParseText("model:layers dense(units=3 activation=relu, name=x), relu();");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ',' or ')' in the arguments of 'dense', "
                          "found name 'activation'"));
}

// An error inside a list argument is reported once.
TEST(ParseRecovery, ErrorInsideAListArgumentIsReportedOnce) {
  Parsed parsed =
      ParseText("model:layers dense(shape=[1 2], units=3), relu();");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("expected ',' or ']' in the list, found number 2"));
}

TEST(ParseRecovery, LexerErrorsAreNotReportedAgain) {
  Parsed parsed = ParseText(
      "model:name @;\n"
      "model:alpha 1e;\n"
      "model:layers relu(-);\n"
      "model:loss MSE;\n");
  EXPECT_THAT(parsed.messages(),
              ElementsAre("unexpected character '@'",
                          "malformed number '1e': the exponent has no digits",
                          "expected a number after '-'"));
  EXPECT_THAT(parsed.where(),
              ElementsAre(Pair(1, 12), Pair(2, 13), Pair(3, 19)));
  ASSERT_THAT(parsed.module.properties, SizeIs(1));
  EXPECT_EQ(parsed.module.properties[0].kind, PropertyKind::kLoss);
}

TEST(ParseRecovery, ManyErrorsStopAtTheCap) {
  std::string text = "model:input shape=[4];\n";
  for (int i = 0; i < 80; ++i) text += "model:alpha x;\n";
  Parsed parsed = ParseText(text);
  EXPECT_EQ(parsed.diagnostics.error_count(), Diagnostics::kMaxErrors);
  EXPECT_THAT(parsed.messages().back(), HasSubstr("too many errors"));
}

TEST(ParseRecovery, AFileOfNothingButBadStatementsIsNoModel) {
  // Statements that all fail, none read: the first five, then why.
  std::string text;
  for (int i = 0; i < 80; ++i) text += "model:alpha x;\n";
  Parsed parsed = ParseText(text);
  EXPECT_EQ(parsed.diagnostics.error_count(), 6);
  EXPECT_THAT(parsed.messages().back(),
              HasSubstr("this does not look like a model file"));
  // Prose: many lexer errors and no statement: the first five, then why.
  Parsed prose = ParseText(
      "Dear all, it's 4 % up; see Bob's notes. Costs: 2 %. Thanks! "
      "Alice's & Carol's figures follow (March's, April's).\n");
  EXPECT_EQ(prose.diagnostics.error_count(), 6);
  EXPECT_THAT(prose.messages().back(),
              HasSubstr("this does not look like a model file"));
  // A model with many mistakes is still reported in full.
  std::string mistakes = "model:input shape=[4];\n";
  for (int i = 0; i < 12; ++i) mistakes += "model:alpha x;\n";
  Parsed model = ParseText(mistakes);
  EXPECT_EQ(model.diagnostics.error_count(), 12);
  EXPECT_THAT(model.messages(),
              Not(Contains(HasSubstr("does not look like a model file"))));
}

TEST(ParseRecovery, BinaryDataIsOneError) {
  static constexpr char kElf[] =
      "\x7f"
      "ELF\x02\x01\x01\x00\x00model:input shape=[4];";
  std::string text(kElf, sizeof kElf - 1);
  Parsed parsed = ParseText(text);
  EXPECT_EQ(parsed.diagnostics.error_count(), 1);
  EXPECT_THAT(parsed.messages().front(),
              HasSubstr("this does not look like a model file: it holds "
                        "binary data (byte 0x02)"));
  // Invalid UTF-8 is binary too; valid UTF-8 (and a byte-order mark) is not.
  EXPECT_THAT(ParseText("model:input \xff\xfe shape=[4];").messages(),
              Contains(HasSubstr("binary data (byte 0xff)")));
  EXPECT_THAT(ParseText("\xef\xbb\xbfmodel:name caf\xc3\xa9;").messages(),
              Not(Contains(HasSubstr("binary data"))));
}

}  // namespace
}  // namespace webnnm::lang
