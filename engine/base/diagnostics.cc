#include "engine/base/diagnostics.h"

#include "engine/base/strings.h"

namespace webnnm {

const char* SeverityName(Severity severity) {
  return severity == Severity::kError ? "error" : "warning";
}

namespace {

constexpr size_t kMaxEchoed = 200;  // bytes of one value a message repeats

// Where to cut `text` at most `n` bytes in, on a UTF-8 boundary.
size_t CutAt(std::string_view text, size_t n) {
  if (n >= text.size()) return text.size();
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return n;
}

// A message repeats what the user wrote (a name, a number, an option's
// value): each run without spaces longer than kMaxEchoed is cut, so that a
// 100 KB value is not sent back whole.
std::string CutLongRuns(std::string message) {
  std::string out;
  size_t i = 0;
  while (i < message.size()) {
    size_t end = message.find_first_of(" \t\n", i);
    if (end == std::string::npos) end = message.size();
    std::string_view run(message.data() + i, end - i);
    if (run.size() > kMaxEchoed) {
      out.append(run.substr(0, CutAt(run, kMaxEchoed)));
      StrAppend(&out, "… (", run.size(), " bytes)");
    } else {
      out.append(run);
    }
    if (end < message.size()) out.push_back(message[end]);
    i = end + 1;
  }
  return out;
}

}  // namespace

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
  if (message.size() > kMaxEchoed) message = CutLongRuns(std::move(message));
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
  return {file_->NameAt(diagnostic.range.begin), at.line, at.column,
          diagnostic.severity, diagnostic.message};
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
      StrCat(file_->NameAt(diagnostic.range.begin), ":", at.line, ":",
             at.column, ": ", SeverityName(diagnostic.severity), ": ",
             diagnostic.message, "\n");
  std::string_view line = file_->LineAt(diagnostic.range.begin);
  // The caret's byte in the line.
  int column = 1;
  size_t caret_at = 0;
  for (; caret_at < line.size() && column < at.column; ++caret_at) {
    if ((static_cast<unsigned char>(line[caret_at]) & 0xC0) != 0x80) ++column;
  }
  while (caret_at < line.size() &&
         (static_cast<unsigned char>(line[caret_at]) & 0xC0) == 0x80) {
    ++caret_at;
  }
  // A long line is shown as a window around the caret, cut with '…'.
  size_t lo = 0, hi = line.size();
  if (line.size() > kMaxEchoed) {
    lo = CutAt(line, caret_at > kMaxEchoed / 4 ? caret_at - kMaxEchoed / 4 : 0);
    hi = lo + CutAt(line.substr(lo), kMaxEchoed);
  }
  // Control characters (a binary file's) are echoed as '?', one column
  // each, so that the terminal shows the line as it lines up.
  std::string echoed(line.substr(lo, hi - lo));
  for (char& c : echoed) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) c = '?';
  }
  StrAppend(&out, lo > 0 ? "…" : "", echoed, hi < line.size() ? "…" : "", "\n");
  // The caret line copies tabs from the source line so that it lines up.
  std::string caret = lo > 0 ? " " : "";
  for (size_t i = lo; i < caret_at && i < hi; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    caret.push_back(c == '\t' ? '\t' : ' ');
  }
  caret.push_back('^');
  // Underline the rest of the range when it stays on this line (and in
  // the window).
  LineColumn end = file_->Locate(diagnostic.range.end);
  if (end.line == at.line) {
    const int most = static_cast<int>(hi > caret_at ? hi - caret_at : 0);
    for (int c = at.column + 1; c < end.column && c - at.column < most; ++c) {
      caret.push_back('~');
    }
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
