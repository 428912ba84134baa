// Diagnostics: collection, rendering with a caret line, deduplication, the
// error cap and located records.
#include "engine/base/diagnostics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace webnnm {
namespace {

using ::testing::HasSubstr;

Diagnostics Make(std::string text, std::string name = "model.wnm") {
  return Diagnostics(
      std::make_shared<const SourceFile>(std::move(name), std::move(text)));
}

// The byte range of the first occurrence of `needle` in the text.
SourceRange Find(const Diagnostics& diagnostics, std::string_view needle) {
  size_t at = diagnostics.file().text().find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return {static_cast<uint32_t>(at), static_cast<uint32_t>(at + needle.size())};
}

TEST(Severity, Names) {
  EXPECT_STREQ(SeverityName(Severity::kError), "error");
  EXPECT_STREQ(SeverityName(Severity::kWarning), "warning");
}

TEST(Diagnostics, StartsEmpty) {
  Diagnostics diagnostics = Make("x;");
  EXPECT_FALSE(diagnostics.has_errors());
  EXPECT_EQ(diagnostics.error_count(), 0);
  EXPECT_TRUE(diagnostics.all().empty());
  EXPECT_EQ(diagnostics.RenderAll(), "");
  EXPECT_EQ(diagnostics.file().name(), "model.wnm");
  EXPECT_EQ(diagnostics.shared_file()->text(), "x;");
}

TEST(Diagnostics, KeepsDiagnosticsInOrder) {
  Diagnostics diagnostics = Make("abc");
  diagnostics.Error({2, 3}, "second");
  diagnostics.Warning({0, 1}, "first");
  ASSERT_EQ(diagnostics.all().size(), 2u);
  EXPECT_EQ(diagnostics.all()[0].message, "second");
  EXPECT_EQ(diagnostics.all()[0].severity, Severity::kError);
  EXPECT_EQ(diagnostics.all()[0].range, (SourceRange{2, 3}));
  EXPECT_EQ(diagnostics.all()[1].message, "first");
  EXPECT_EQ(diagnostics.all()[1].severity, Severity::kWarning);
}

TEST(Diagnostics, WarningsAreNotErrors) {
  Diagnostics diagnostics = Make("abc");
  diagnostics.Warning({0, 1}, "careful");
  diagnostics.Warning({1, 2}, "careful again");
  EXPECT_FALSE(diagnostics.has_errors());
  EXPECT_EQ(diagnostics.error_count(), 0);
  EXPECT_EQ(diagnostics.all().size(), 2u);

  diagnostics.Error({0, 1}, "broken");
  EXPECT_TRUE(diagnostics.has_errors());
  EXPECT_EQ(diagnostics.error_count(), 1);
  diagnostics.Error({1, 2}, "broken too");
  EXPECT_EQ(diagnostics.error_count(), 2);
  EXPECT_EQ(diagnostics.all().size(), 4u);
}

TEST(DiagnosticsRender, ErrorWithEmptyRangeHasACaretOnly) {
  Diagnostics diagnostics =
      Make("model:layers dense(shape=[10];\n", "model.wnm");
  SourceRange semicolon = Find(diagnostics, ";");
  diagnostics.Error({semicolon.begin, semicolon.begin},
                    "expected ')' after the arguments, found ';'");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "model.wnm:1:30: error: expected ')' after the arguments, found "
            "';'\n"
            "model:layers dense(shape=[10];\n"
            "                             ^\n");
}

TEST(DiagnosticsRender, TildesUnderTheRestOfAOneLineRange) {
  Diagnostics diagnostics = Make("a: layers relu();", "m");
  diagnostics.Error(Find(diagnostics, "layers"), "bad property");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:4: error: bad property\n"
            "a: layers relu();\n"
            "   ^~~~~~\n");
}

TEST(DiagnosticsRender, OneCharacterRangeHasNoTildes) {
  Diagnostics diagnostics = Make("x @ y", "m");
  diagnostics.Error({2, 3}, "unexpected character '@'");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:3: error: unexpected character '@'\n"
            "x @ y\n"
            "  ^\n");
}

TEST(DiagnosticsRender, WarningsSayWarning) {
  Diagnostics diagnostics = Make("abc", "m");
  diagnostics.Warning({1, 2}, "odd");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:2: warning: odd\nabc\n ^\n");
}

TEST(DiagnosticsRender, CaretLinesUpAfterATab) {
  Diagnostics diagnostics = Make("a\tbad;", "m");
  diagnostics.Error(Find(diagnostics, "bad"), "what");
  // The tab is copied so the caret sits under 'b' at any tab width.
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:3: error: what\n"
            "a\tbad;\n"
            " \t^~~\n");
}

TEST(DiagnosticsRender, CaretCountsAMultiByteCharacterAsOneColumn) {
  // "é" (2 bytes) and "€" (3 bytes) each take one column.
  Diagnostics diagnostics = Make("\xC3\xA9\xE2\x82\xAC bad", "m");
  diagnostics.Error(Find(diagnostics, "bad"), "what");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:4: error: what\n"
            "\xC3\xA9\xE2\x82\xAC bad\n"
            "   ^~~\n");
}

TEST(DiagnosticsRender, TildesCountCharactersNotBytes) {
  Diagnostics diagnostics = Make("x \xC3\xA9\xC3\xA9\xC3\xA9 y", "m");
  diagnostics.Error(Find(diagnostics, "\xC3\xA9\xC3\xA9\xC3\xA9"), "what");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:3: error: what\n"
            "x \xC3\xA9\xC3\xA9\xC3\xA9 y\n"
            "  ^~~\n");
}

TEST(DiagnosticsRender, ShowsTheLineOfTheRangeStart) {
  Diagnostics diagnostics = Make("first;\r\nsecond bad;\nthird;\n", "m");
  diagnostics.Error(Find(diagnostics, "bad"), "what");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:2:8: error: what\n"
            "second bad;\n"
            "       ^~~\n");
}

TEST(DiagnosticsRender, RangeOverSeveralLinesGetsNoTildes) {
  Diagnostics diagnostics = Make("abc def\nghi", "m");
  SourceRange range = {4, 10};  // "def\ngh"
  diagnostics.Error(range, "what");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:5: error: what\n"
            "abc def\n"
            "    ^\n");
}

TEST(DiagnosticsRender, AtTheEndOfALineTheCaretFollowsTheLastCharacter) {
  Diagnostics diagnostics = Make("abc\ndef", "m");
  diagnostics.Error({3, 3}, "expected ';'");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:1:4: error: expected ';'\nabc\n   ^\n");
}

TEST(DiagnosticsRender, AtTheEndOfTheFile) {
  Diagnostics diagnostics = Make("abc\n", "m");
  diagnostics.Error({4, 4}, "expected ';', found end of file");
  EXPECT_EQ(diagnostics.Render(diagnostics.all()[0]),
            "m:2:1: error: expected ';', found end of file\n\n^\n");
}

TEST(DiagnosticsRender, RenderAllConcatenatesInOrder) {
  Diagnostics diagnostics = Make("ab", "m");
  diagnostics.Error({0, 1}, "one");
  diagnostics.Warning({1, 2}, "two");
  EXPECT_EQ(diagnostics.RenderAll(),
            "m:1:1: error: one\nab\n^\n"
            "m:1:2: warning: two\nab\n ^\n");
}

TEST(DiagnosticsDedup, IdenticalDiagnosticsAreKeptOnce) {
  Diagnostics diagnostics = Make("abcdef");
  diagnostics.Error({1, 3}, "same");
  diagnostics.Error({1, 3}, "same");
  diagnostics.Error({1, 3}, "same");
  EXPECT_EQ(diagnostics.all().size(), 1u);
  EXPECT_EQ(diagnostics.error_count(), 1);

  diagnostics.Warning({0, 2}, "warned");
  diagnostics.Warning({0, 2}, "warned");
  EXPECT_EQ(diagnostics.all().size(), 2u);
}

TEST(DiagnosticsDedup, DifferentRangeMessageOrSeverityAreKept) {
  Diagnostics diagnostics = Make("abcdef");
  diagnostics.Error({1, 3}, "same");
  diagnostics.Error({1, 4}, "same");    // other end
  diagnostics.Error({2, 3}, "same");    // other begin
  diagnostics.Error({1, 3}, "other");   // other message
  diagnostics.Warning({1, 3}, "same");  // other severity
  EXPECT_EQ(diagnostics.all().size(), 5u);
  EXPECT_EQ(diagnostics.error_count(), 4);
}

TEST(DiagnosticsCap, ErrorsBeyondTheLimitAreDroppedWithOneNote) {
  Diagnostics diagnostics = Make(std::string(200, 'x'));
  for (uint32_t i = 0; i < 80; ++i) {
    diagnostics.Error({i, i + 1}, "error " + std::to_string(i));
  }
  EXPECT_EQ(diagnostics.error_count(), Diagnostics::kMaxErrors);
  EXPECT_TRUE(diagnostics.has_errors());
  // kMaxErrors errors and one note that says errors were dropped.
  ASSERT_EQ(diagnostics.all().size(),
            static_cast<size_t>(Diagnostics::kMaxErrors) + 1);
  EXPECT_EQ(diagnostics.all()[Diagnostics::kMaxErrors - 1].message, "error 49");
  const Diagnostic& note = diagnostics.all().back();
  EXPECT_EQ(note.severity, Severity::kError);
  EXPECT_EQ(note.message, "too many errors (more than 50); stopping here");
  EXPECT_EQ(note.range, (SourceRange{50, 51}));  // the first dropped error
  int notes = 0;
  for (const Diagnostic& d : diagnostics.all()) {
    if (d.message.find("too many errors") != std::string::npos) ++notes;
  }
  EXPECT_EQ(notes, 1);
}

TEST(DiagnosticsCap, DuplicatesDoNotCountTowardsTheLimit) {
  Diagnostics diagnostics = Make(std::string(100, 'x'));
  for (int repeat = 0; repeat < 5; ++repeat) {
    for (uint32_t i = 0; i < Diagnostics::kMaxErrors; ++i) {
      diagnostics.Error({i, i + 1}, "e");
    }
  }
  EXPECT_EQ(diagnostics.error_count(), Diagnostics::kMaxErrors);
  EXPECT_EQ(diagnostics.all().size(),
            static_cast<size_t>(Diagnostics::kMaxErrors));
  for (const Diagnostic& d : diagnostics.all()) {
    EXPECT_THAT(d.message, ::testing::Not(HasSubstr("too many errors")));
  }
}

TEST(DiagnosticsCap, WarningsDoNotCountTowardsTheLimit) {
  Diagnostics diagnostics = Make(std::string(200, 'x'));
  for (uint32_t i = 0; i < 100; ++i) {
    diagnostics.Warning({i, i + 1}, "w");
  }
  EXPECT_EQ(diagnostics.error_count(), 0);
  EXPECT_EQ(diagnostics.all().size(), 100u);
  diagnostics.Error({0, 1}, "e");
  EXPECT_EQ(diagnostics.error_count(), 1);
  EXPECT_EQ(diagnostics.all().back().message, "e");
}

TEST(DiagnosticsLocate, ResolvesTheRangeStart) {
  Diagnostics diagnostics = Make("one;\n\xC3\xA9 two;\n", "net.wnm");
  diagnostics.Warning(Find(diagnostics, "two"), "hmm");
  LocatedDiagnostic located = diagnostics.Locate(diagnostics.all()[0]);
  EXPECT_EQ(located.file, "net.wnm");
  EXPECT_EQ(located.line, 2);
  EXPECT_EQ(located.column, 3);
  EXPECT_EQ(located.severity, Severity::kWarning);
  EXPECT_EQ(located.message, "hmm");
}

TEST(DiagnosticsLocate, LocateAllKeepsOrderAndSeverity) {
  Diagnostics diagnostics = Make("a;\r\nb;\rc;", "f");
  diagnostics.Error(Find(diagnostics, "c"), "third line");
  diagnostics.Warning(Find(diagnostics, "a"), "first line");
  diagnostics.Error(Find(diagnostics, "b;"), "second line");
  std::vector<LocatedDiagnostic> all = diagnostics.LocateAll();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].line, 3);
  EXPECT_EQ(all[0].column, 1);
  EXPECT_EQ(all[0].message, "third line");
  EXPECT_EQ(all[0].severity, Severity::kError);
  EXPECT_EQ(all[1].line, 1);
  EXPECT_EQ(all[1].severity, Severity::kWarning);
  EXPECT_EQ(all[2].line, 2);
  EXPECT_EQ(all[2].column, 1);
  for (const LocatedDiagnostic& d : all) EXPECT_EQ(d.file, "f");
}

TEST(DiagnosticsLocate, LocateAllOfNothingIsEmpty) {
  EXPECT_TRUE(Make("abc").LocateAll().empty());
}

TEST(Diagnostics, EchoedValuesAndLongLinesAreCut) {
  // A 100 KB option value, repeated by the message and on the source line.
  const std::string value(100000, '7');
  Diagnostics diagnostics =
      Make("model:layers dense(units=" + value + ", shape=[3]);\n");
  diagnostics.Error(Find(diagnostics, value),
                    "units must be at most 1e9, not " + value);
  const std::string& message = diagnostics.all()[0].message;
  EXPECT_LT(message.size(), 300u);
  EXPECT_THAT(message, HasSubstr("not " + std::string(200, '7') +
                                 "… (100000 bytes)"));
  std::string rendered = diagnostics.RenderAll();
  EXPECT_LT(rendered.size(), 1200u) << rendered.size();
  // The window starts at the line's beginning (the caret is near it) and
  // is cut after it, the caret and its tildes inside.
  EXPECT_THAT(rendered, HasSubstr("model:layers dense(units=777"));
  EXPECT_THAT(rendered, HasSubstr("7…\n"));
  EXPECT_THAT(rendered, HasSubstr("\n                         ^~~~"));
  // Short messages and lines are as they were.
  Diagnostics shortish = Make("a b;\n");
  shortish.Error({2, 3}, "unknown 'b'");
  EXPECT_EQ(shortish.RenderAll(),
            "model.wnm:1:3: error: unknown 'b'\na b;\n  ^\n");
}

TEST(Diagnostics, ALongLineIsAWindowAroundTheCaret) {
  const std::string filler(1000, 'x');
  Diagnostics diagnostics = Make(filler + " bad " + filler + "\n");
  diagnostics.Error(Find(diagnostics, "bad"), "unknown 'bad'");
  std::string rendered = diagnostics.RenderAll();
  std::string shown = rendered.substr(rendered.find('\n') + 1);
  std::string line = shown.substr(0, shown.find('\n'));
  std::string caret = shown.substr(shown.find('\n') + 1);
  EXPECT_TRUE(line.starts_with("…")) << line;
  EXPECT_TRUE(line.ends_with("…")) << line;
  // The caret sits under "bad" in the window ('…' is one column).
  const size_t bad = line.find(" bad ") + 1;
  const size_t ellipsis_bytes = std::string("…").size();
  EXPECT_EQ(caret.find('^'), bad - ellipsis_bytes + 1);
  EXPECT_TRUE(caret.starts_with(std::string(caret.find('^'), ' ')));
}

}  // namespace
}  // namespace webnnm
