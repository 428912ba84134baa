// Source text and locations.
//
// A SourceFile owns the text of one model file and maps byte offsets to
// 1-based line and column numbers, columns counted in characters (UTF-8 code
// points), as every diagnostic reports them. A SourceRange is a half-open
// byte range [begin, end) into one SourceFile; every token and syntax node
// carries one. A file may carry a second text appended after its own (the
// model prelude: model/prelude.h): offsets in it are located in that text,
// under its own name. SourceFile is immutable after construction and safe
// to share between threads.
#ifndef WEBNNM_ENGINE_BASE_SOURCE_H_
#define WEBNNM_ENGINE_BASE_SOURCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace webnnm {

struct SourceRange {
  uint32_t begin = 0;
  uint32_t end = 0;

  // The smallest range covering both.
  static SourceRange Cover(SourceRange a, SourceRange b) {
    return {a.begin < b.begin ? a.begin : b.begin,
            a.end > b.end ? a.end : b.end};
  }
  bool operator==(const SourceRange&) const = default;
};

struct LineColumn {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in characters
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  // `text`, a line break, then `appended_text`, which offsets from
  // appended_at() on belong to (named `appended_name`).
  SourceFile(std::string name, std::string text, std::string appended_name,
             std::string_view appended_text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // Where the appended text begins (text().size() when there is none).
  uint32_t appended_at() const { return appended_at_; }

  // Line and column of a byte offset, within its own text (the file's, or
  // the appended one's); offsets past the end map to the end.
  LineColumn Locate(uint32_t offset) const;
  // The name of the text holding `offset`.
  const std::string& NameAt(uint32_t offset) const;
  // The line holding `offset`, without its line terminator.
  std::string_view LineAt(uint32_t offset) const;

  // The text of 1-based line `line` of the whole text, without its line
  // terminator.
  std::string_view Line(int line) const;

  std::string_view Slice(SourceRange range) const;

 private:
  // The 1-based line of the whole text holding `offset`.
  int GlobalLine(uint32_t offset) const;

  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;  // byte offset of each line's start
  uint32_t appended_at_ = 0;
  std::string appended_name_;
  int appended_first_line_ = 0;  // the global line of appended_at_
};

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_SOURCE_H_
