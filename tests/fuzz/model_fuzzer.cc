// libFuzzer target: model text through the whole front end (lexer, parser,
// model builder, DAG builder, summary and dump). Any crash, hang, leak or
// sanitizer report is a bug: bad input must only ever produce diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/check.h"
#include "engine/dag/dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  webnnm::ir::Limits limits;
  limits.max_tensor_bytes = 1 << 26;  // keep shapes small for the fuzzer
  webnnm::CheckResult result = webnnm::CheckModel("fuzz.wnm", text, limits);
  if (result.ok) {
    std::string dump = webnnm::dag::DumpGraph(result.dag->graph);
    if (dump.empty()) __builtin_trap();  // a valid model has nodes
  } else if (result.diagnostics.empty()) {
    __builtin_trap();  // an invalid model must say why
  }
  return 0;
}
