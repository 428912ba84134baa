#include "engine/base/diagnostics.h"

#include "engine/base/strings.h"

namespace webnnm {

const char* SeverityName(Severity severity) {
  return severity == Severity::kError ? "error" : "warning";
}

Diagnostics::Diagnostics(std::shared_ptr<const SourceFile> file)
    : file_(std::move(file)) {}

void Diagnostics::Error(SourceRange range, std::string message) {
  Add(Severity::kError, range, std::move(message));
}

void Diagnostics::Warning(SourceRange range, std::string message) {
  Add(Severity::kWarning, range, std::move(message));
}

void Diagnostics::Add(Severity severity, SourceRange range,
                      std::string message) {
  for (const Diagnostic& d : diagnostics_) {
    if (d.severity == severity && d.range == range && d.message == message) {
      return;
    }
  }
  if (severity == Severity::kError) {
    if (error_count_ >= kMaxErrors) {
      if (!truncated_) {
        truncated_ = true;
        diagnostics_.push_back({Severity::kError, range,
                                StrCat("too many errors (more than ",
                                       kMaxErrors, "); stopping here")});
      }
      return;
    }
    ++error_count_;
  }
  diagnostics_.push_back({severity, range, std::move(message)});
}

LocatedDiagnostic Diagnostics::Locate(const Diagnostic& diagnostic) const {
  LineColumn at = file_->Locate(diagnostic.range.begin);
  return {file_->name(), at.line, at.column, diagnostic.severity,
          diagnostic.message};
}

std::vector<LocatedDiagnostic> Diagnostics::LocateAll() const {
  std::vector<LocatedDiagnostic> located;
  located.reserve(diagnostics_.size());
  for (const Diagnostic& d : diagnostics_) located.push_back(Locate(d));
  return located;
}

std::string Diagnostics::Render(const Diagnostic& diagnostic) const {
  LineColumn at = file_->Locate(diagnostic.range.begin);
  std::string out =
      StrCat(file_->name(), ":", at.line, ":", at.column, ": ",
             SeverityName(diagnostic.severity), ": ", diagnostic.message, "\n");
  std::string_view line = file_->Line(at.line);
  StrAppend(&out, line, "\n");
  // The caret line copies tabs from the source line so that it lines up.
  std::string caret;
  int column = 1;
  size_t i = 0;
  for (; i < line.size() && column < at.column; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    caret.push_back(c == '\t' ? '\t' : ' ');
    ++column;
  }
  caret.push_back('^');
  // Underline the rest of the range when it stays on this line.
  LineColumn end = file_->Locate(diagnostic.range.end);
  if (end.line == at.line) {
    for (int c = at.column + 1; c < end.column; ++c) caret.push_back('~');
  }
  StrAppend(&out, caret, "\n");
  return out;
}

std::string Diagnostics::RenderAll() const {
  std::string out;
  for (const Diagnostic& d : diagnostics_) StrAppend(&out, Render(d));
  return out;
}

}  // namespace webnnm
