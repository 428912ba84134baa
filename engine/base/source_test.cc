// SourceFile: byte offsets to 1-based lines and columns (columns in UTF-8
// characters), line text without terminators, and slices.
#include "engine/base/source.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace webnnm {
namespace {

// Locate() as a comparable pair.
std::pair<int, int> At(const SourceFile& file, uint32_t offset) {
  LineColumn at = file.Locate(offset);
  return {at.line, at.column};
}

using LC = std::pair<int, int>;

TEST(SourceFile, KeepsNameAndText) {
  SourceFile file("model.wnm", "a;\nb;");
  EXPECT_EQ(file.name(), "model.wnm");
  EXPECT_EQ(file.text(), "a;\nb;");
}

TEST(SourceFileLocate, FirstLineCountsColumnsFromOne) {
  SourceFile file("m", "abc");
  EXPECT_EQ(At(file, 0), LC(1, 1));
  EXPECT_EQ(At(file, 1), LC(1, 2));
  EXPECT_EQ(At(file, 2), LC(1, 3));
  EXPECT_EQ(At(file, 3), LC(1, 4));  // the end of the text
}

TEST(SourceFileLocate, LineFeedEndsALine) {
  SourceFile file("m", "ab\ncd\n\nx");
  EXPECT_EQ(At(file, 2), LC(1, 3));  // the '\n' belongs to line 1
  EXPECT_EQ(At(file, 3), LC(2, 1));
  EXPECT_EQ(At(file, 4), LC(2, 2));
  EXPECT_EQ(At(file, 6), LC(3, 1));  // an empty line
  EXPECT_EQ(At(file, 7), LC(4, 1));
}

TEST(SourceFileLocate, CarriageReturnLineFeedIsOneLineEnd) {
  SourceFile file("m", "ab\r\ncd\r\ne");
  EXPECT_EQ(At(file, 2), LC(1, 3));  // '\r'
  EXPECT_EQ(At(file, 3), LC(1, 4));  // '\n' of the same terminator
  EXPECT_EQ(At(file, 4), LC(2, 1));
  EXPECT_EQ(At(file, 5), LC(2, 2));
  EXPECT_EQ(At(file, 8), LC(3, 1));  // not line 5: "\r\n" counts once
}

TEST(SourceFileLocate, LoneCarriageReturnEndsALine) {
  // a b \r c d \r \r x
  // 0 1 2  3 4 5  6  7
  SourceFile file("m", "ab\rcd\r\rx");
  EXPECT_EQ(At(file, 2), LC(1, 3));
  EXPECT_EQ(At(file, 3), LC(2, 1));
  EXPECT_EQ(At(file, 4), LC(2, 2));
  EXPECT_EQ(At(file, 6), LC(3, 1));  // the empty line between two CRs
  EXPECT_EQ(At(file, 7), LC(4, 1));
}

TEST(SourceFileLocate, MixedLineEnds) {
  // "a\n" "b\r\n" "c\r" "d"
  SourceFile file("m", "a\nb\r\nc\rd");
  EXPECT_EQ(At(file, 2), LC(2, 1));
  EXPECT_EQ(At(file, 5), LC(3, 1));
  EXPECT_EQ(At(file, 7), LC(4, 1));
}

TEST(SourceFileLocate, TextEndingInCarriageReturnHasAnEmptyLastLine) {
  SourceFile file("m", "ab\r");
  EXPECT_EQ(At(file, 3), LC(2, 1));
  EXPECT_EQ(file.Line(2), "");
}

TEST(SourceFileLocate, ColumnsCountUtf8Characters) {
  // "é" is 2 bytes, "€" 3 bytes, "😀" 4 bytes.
  std::string text = "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80x";
  SourceFile file("m", text);
  EXPECT_EQ(At(file, 0), LC(1, 1));
  EXPECT_EQ(At(file, 2), LC(1, 2));  // after é
  EXPECT_EQ(At(file, 5), LC(1, 3));  // after €
  EXPECT_EQ(At(file, 9), LC(1, 4));  // after 😀: the 'x'
  EXPECT_EQ(At(file, 10), LC(1, 5));
}

TEST(SourceFileLocate, MultiByteCharactersOnALaterLine) {
  // Characters on earlier lines do not shift the column.
  SourceFile file("m", "\xC3\xA9\xC3\xA9\n\xE2\x82\xAC = x");
  uint32_t x = static_cast<uint32_t>(file.text().find('x'));
  EXPECT_EQ(At(file, x), LC(2, 5));  // "€ = x": x is the 5th character
}

TEST(SourceFileLocate, TabCountsAsOneColumn) {
  SourceFile file("m", "\t\tx");
  EXPECT_EQ(At(file, 2), LC(1, 3));
}

TEST(SourceFileLocate, OffsetsPastTheEndMapToTheEnd) {
  SourceFile file("m", "ab\ncd");
  EXPECT_EQ(At(file, 5), LC(2, 3));
  EXPECT_EQ(At(file, 6), LC(2, 3));
  EXPECT_EQ(At(file, 1000), LC(2, 3));
  EXPECT_EQ(At(file, UINT32_MAX), LC(2, 3));

  SourceFile ends_in_newline("m", "ab\n");
  EXPECT_EQ(At(ends_in_newline, 3), LC(2, 1));
  EXPECT_EQ(At(ends_in_newline, 99), LC(2, 1));
}

TEST(SourceFileLocate, EmptyText) {
  SourceFile file("m", "");
  EXPECT_EQ(At(file, 0), LC(1, 1));
  EXPECT_EQ(At(file, 10), LC(1, 1));
  EXPECT_EQ(file.Line(1), "");
}

TEST(SourceFileLine, ReturnsLinesWithoutTerminators) {
  SourceFile file("m", "first\nsecond\r\nthird\rfourth");
  EXPECT_EQ(file.Line(1), "first");
  EXPECT_EQ(file.Line(2), "second");
  EXPECT_EQ(file.Line(3), "third");
  EXPECT_EQ(file.Line(4), "fourth");  // the last line has no terminator
}

TEST(SourceFileLine, EmptyLines) {
  SourceFile file("m", "a\n\r\n\rb\n");
  EXPECT_EQ(file.Line(1), "a");
  EXPECT_EQ(file.Line(2), "");  // "\r\n"
  EXPECT_EQ(file.Line(3), "");  // lone "\r"
  EXPECT_EQ(file.Line(4), "b");
  EXPECT_EQ(file.Line(5), "");  // after the final '\n'
}

TEST(SourceFileLine, KeepsOtherWhitespaceAndMultiByteText) {
  SourceFile file("m", "  \tx \xE2\x82\xAC \n");
  EXPECT_EQ(file.Line(1), "  \tx \xE2\x82\xAC ");
}

TEST(SourceFileLine, OutOfRangeLinesAreEmpty) {
  SourceFile file("m", "a\nb");
  EXPECT_EQ(file.Line(0), "");
  EXPECT_EQ(file.Line(-1), "");
  EXPECT_EQ(file.Line(3), "");
  EXPECT_EQ(file.Line(100), "");
}

TEST(SourceFileLine, AgreesWithLocate) {
  SourceFile file("m", "model:input [784];\r\nmodel:layers relu();\n");
  uint32_t relu = static_cast<uint32_t>(file.text().find("relu"));
  LineColumn at = file.Locate(relu);
  ASSERT_EQ(at.line, 2);
  EXPECT_EQ(file.Line(at.line).substr(at.column - 1, 4), "relu");
}

TEST(SourceFileSlice, ReturnsTheHalfOpenRange) {
  SourceFile file("m", "abcdef");
  EXPECT_EQ(file.Slice({1, 3}), "bc");
  EXPECT_EQ(file.Slice({0, 6}), "abcdef");
  EXPECT_EQ(file.Slice({2, 2}), "");
}

TEST(SourceFileSlice, ClampsToTheText) {
  SourceFile file("m", "abcdef");
  EXPECT_EQ(file.Slice({4, 100}), "ef");
  EXPECT_EQ(file.Slice({6, 10}), "");
  EXPECT_EQ(file.Slice({50, 60}), "");
  EXPECT_EQ(file.Slice({4, 2}), "");  // end before begin
}

TEST(SourceFileSlice, PointsIntoTheFileText) {
  SourceFile file("m", "x = 1;");
  std::string_view slice = file.Slice({4, 5});
  EXPECT_EQ(slice, "1");
  EXPECT_EQ(slice.data(), file.text().data() + 4);
}

TEST(SourceRange, CoverSpansBothRanges) {
  EXPECT_EQ(SourceRange::Cover({2, 4}, {6, 9}), (SourceRange{2, 9}));
  EXPECT_EQ(SourceRange::Cover({6, 9}, {2, 4}), (SourceRange{2, 9}));
  EXPECT_EQ(SourceRange::Cover({1, 10}, {3, 4}), (SourceRange{1, 10}));
  EXPECT_NE((SourceRange{1, 2}), (SourceRange{1, 3}));
}

TEST(SourceFileAppended, OffsetsInTheAppendedTextLocateThere) {
  // "a\nb" then the appended "x\nyz": lines count from 1 in each part.
  SourceFile file("model.wnm", "a\nb", "prelude.wnm", "x\nyz");
  EXPECT_EQ(file.text(), "a\nb\nx\nyz");
  EXPECT_EQ(file.appended_at(), 4u);
  EXPECT_EQ(file.NameAt(2), "model.wnm");
  EXPECT_EQ(file.Locate(2).line, 2);
  EXPECT_EQ(file.NameAt(4), "prelude.wnm");
  EXPECT_EQ(file.Locate(4).line, 1);
  EXPECT_EQ(file.Locate(7).line, 2);
  EXPECT_EQ(file.Locate(7).column, 2);
  EXPECT_EQ(file.LineAt(7), "yz");
  EXPECT_EQ(file.LineAt(1), "a");
}

TEST(SourceFileAppended, AFileWithoutOneHasOneName) {
  SourceFile file("m.wnm", "a\nb");
  EXPECT_EQ(file.NameAt(3), "m.wnm");
  EXPECT_EQ(file.Locate(3).line, 2);
}

}  // namespace
}  // namespace webnnm
