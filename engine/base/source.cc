#include "engine/base/source.h"

#include <algorithm>

namespace webnnm {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    // "\r\n" and "\n" end a line; so does a lone "\r".
    if (text_[i] == '\n' ||
        (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n'))) {
      line_starts_.push_back(i + 1);
    }
  }
}

LineColumn SourceFile::Locate(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = static_cast<int>(it - line_starts_.begin());
  uint32_t start = line_starts_[line - 1];
  int column = 1;
  for (uint32_t i = start; i < offset; ++i) {
    // Count code points: skip UTF-8 continuation bytes.
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
  }
  return {line, column};
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > static_cast<int>(line_starts_.size())) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < static_cast<int>(line_starts_.size())
                     ? line_starts_[line]
                     : static_cast<uint32_t>(text_.size());
  std::string_view view(text_.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) {
    view.remove_suffix(1);
  }
  return view;
}

std::string_view SourceFile::Slice(SourceRange range) const {
  uint32_t begin = std::min<uint32_t>(range.begin, text_.size());
  uint32_t end = std::min<uint32_t>(std::max(range.end, begin), text_.size());
  return std::string_view(text_).substr(begin, end - begin);
}

}  // namespace webnnm
