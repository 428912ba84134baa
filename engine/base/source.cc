#include "engine/base/source.h"

#include <algorithm>

namespace webnnm {

SourceFile::SourceFile(std::string name, std::string text,
                       std::string appended_name,
                       std::string_view appended_text)
    : SourceFile(std::move(name), text + "\n" + std::string(appended_text)) {
  appended_at_ = static_cast<uint32_t>(text.size() + 1);
  appended_name_ = std::move(appended_name);
  appended_first_line_ = GlobalLine(appended_at_);
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  appended_at_ = static_cast<uint32_t>(text_.size());
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    // "\r\n" and "\n" end a line; so does a lone "\r".
    if (text_[i] == '\n' ||
        (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n'))) {
      line_starts_.push_back(i + 1);
    }
  }
}

int SourceFile::GlobalLine(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<int>(it - line_starts_.begin());
}

LineColumn SourceFile::Locate(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  const int line = GlobalLine(offset);
  uint32_t start = line_starts_[line - 1];
  int column = 1;
  for (uint32_t i = start; i < offset; ++i) {
    // Count code points: skip UTF-8 continuation bytes.
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
  }
  if (!appended_name_.empty() && offset >= appended_at_) {
    return {line - appended_first_line_ + 1, column};
  }
  return {line, column};
}

const std::string& SourceFile::NameAt(uint32_t offset) const {
  return !appended_name_.empty() && offset >= appended_at_ ? appended_name_
                                                           : name_;
}

std::string_view SourceFile::LineAt(uint32_t offset) const {
  return Line(GlobalLine(offset));
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
