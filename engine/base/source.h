// Source text and locations.
//
// A SourceFile owns the text of one model file and maps byte offsets to
// 1-based line and column numbers, columns counted in characters (UTF-8 code
// points), as every diagnostic reports them. A SourceRange is a half-open
// byte range [begin, end) into one SourceFile; every token and syntax node
// carries one. SourceFile is immutable after construction and safe to share
// between threads.
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

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  // Line and column of a byte offset; offsets past the end map to the end.
  LineColumn Locate(uint32_t offset) const;

  // The text of 1-based line `line`, without its line terminator.
  std::string_view Line(int line) const;

  std::string_view Slice(SourceRange range) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;  // byte offset of each line's start
};

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_SOURCE_H_
