// Diagnostics as data.
//
// Every phase (lexer, parser, model builder, DAG builder) reports problems to
// a Diagnostics collector instead of failing on the first one. A diagnostic
// has a severity, a source range and a message that says what was expected
// and what was found. The collector renders them the way compilers do:
//
//   model.wnm:3:14: error: expected ')' after the arguments, found ';'
//   model:layers dense(shape=[10];
//                ^
//
// and converts them to located records (file, line, column) for JSON and
// gRPC. Identical diagnostics (same range and message, as an error inside a
// template instantiated several times gives) are kept once. After
// kMaxErrors errors further errors are dropped. Not thread-safe.
#ifndef WEBNNM_ENGINE_BASE_DIAGNOSTICS_H_
#define WEBNNM_ENGINE_BASE_DIAGNOSTICS_H_

#include <memory>
#include <string>
#include <vector>

#include "engine/base/source.h"

namespace webnnm {

enum class Severity { kError, kWarning };

const char* SeverityName(Severity severity);  // "error" | "warning"

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceRange range;
  std::string message;
};

// A diagnostic with its range resolved to 1-based line and column.
struct LocatedDiagnostic {
  std::string file;
  int line = 1;
  int column = 1;
  Severity severity = Severity::kError;
  std::string message;
};

class Diagnostics {
 public:
  static constexpr int kMaxErrors = 50;

  explicit Diagnostics(std::shared_ptr<const SourceFile> file);

  void Error(SourceRange range, std::string message);
  void Warning(SourceRange range, std::string message);

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  const SourceFile& file() const { return *file_; }
  std::shared_ptr<const SourceFile> shared_file() const { return file_; }

  LocatedDiagnostic Locate(const Diagnostic& diagnostic) const;
  std::vector<LocatedDiagnostic> LocateAll() const;

  // "file:line:col: severity: message", the source line and a caret line
  // (tildes under the rest of a one-line range), each ending in '\n'.
  std::string Render(const Diagnostic& diagnostic) const;
  std::string RenderAll() const;

 private:
  void Add(Severity severity, SourceRange range, std::string message);

  std::shared_ptr<const SourceFile> file_;
  std::vector<Diagnostic> diagnostics_;
  int error_count_ = 0;
  bool truncated_ = false;
};

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_DIAGNOSTICS_H_
