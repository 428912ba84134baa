// Checking a model: from text to diagnostics and a summary of its DAG.
//
// CheckModel runs the whole front end in-process (lexer, parser, model
// builder, DAG builder) and returns what `webnnmctl check` prints and what
// the daemon's CheckModel answers: the located diagnostics, the rendered
// diagnostics with carets, and, for a valid model, the DAG and its summary.
// Thread-safe: it shares no state between calls.
#ifndef WEBNNM_ENGINE_CHECK_H_
#define WEBNNM_ENGINE_CHECK_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/dag/dag.h"
#include "engine/ir/limits.h"

namespace webnnm {

struct TensorSummary {
  std::string name;  // the block's name
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;     // without batch and sequence
  std::vector<std::string> dims;  // their names
  bool sequenced = false;
};

struct ParameterSummary {
  std::string name;
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;
  ir::Init init = ir::Init::kGlorot;
  bool trainable = true;
};

struct LayerSummary {
  std::string section;
  std::string op;
  std::vector<std::string> names;
  std::string result;  // "float32 {batch, features:128}"
  int line = 0;
};

struct ModelSummary {
  std::string name;
  std::vector<TensorSummary> inputs;
  std::vector<TensorSummary> outputs;
  std::vector<LayerSummary> layers;
  std::vector<ParameterSummary> parameters;  // trainable, in name order
  std::vector<ParameterSummary> state;       // running statistics
  int64_t parameter_count = 0;               // trainable elements
  int node_count = 0;                        // every DAG node
};

struct CheckResult {
  bool ok = false;
  std::string name;  // the model's name (or the file's stem) when known
  std::vector<LocatedDiagnostic> diagnostics;
  std::string rendered;               // file:line:col: ... with carets
  std::vector<std::string> rendered_each;  // the same, one per diagnostic
  std::vector<std::string> warnings;  // the warnings' messages
  std::optional<ModelSummary> summary;
  std::optional<dag::Dag> dag;
};

// `file_name` is used in diagnostics; when the model has no name property
// its name is the file name's stem.
CheckResult CheckModel(const std::string& file_name, std::string text,
                       const ir::Limits& limits = {});

ModelSummary Summarize(const dag::Dag& dag);

// The first rendered diagnostics of `check`, errors before warnings, at
// most `count` of them and `bytes` in all (a diagnostic that would pass it
// is left out, but the first is cut to fit, on a UTF-8 character
// boundary), then "… and N more<more>" when some were left out.
// For messages that must stay small (a gRPC status travels as metadata).
std::string RenderedFirst(const CheckResult& check, size_t count,
                          size_t bytes, std::string_view more = "");

// What a refusal's status message holds of a model's diagnostics (the
// daemon's SubmitJob and the like): the first 10, at most 4 KB, then
// "… and N more (CheckModel lists them all)".
inline constexpr size_t kStatusDiagnostics = 10;
inline constexpr size_t kStatusDiagnosticBytes = 4096;
std::string RenderedForStatus(const CheckResult& check);

// The model's warnings as one line each, "file:line:col: message", for a
// run to report beside its own (train prints them, the daemon records them
// as job events).
std::vector<std::string> ModelWarnings(const CheckResult& check);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_CHECK_H_
