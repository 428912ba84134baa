// libFuzzer target: one conformance case (the JSON of one element of a
// vector file's "tests") built through the graph builder, compiled on the
// CPU backend and run twice: on the case's own input data, then on input
// bytes derived from the fuzz input (NaNs, huge and negative indices). A
// case may be rejected, but any crash, leak or sanitizer report (an access
// out of bounds, signed overflow, a float-to-integer conversion out of
// range) is a bug. Seeds: the shared vectors split one case per file
// (split_vectors.py).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "tests/conformance/conformance_case.h"

namespace {

// Fills `out` with bytes from a xorshift generator seeded by `seed`.
void FillBytes(std::span<std::byte> out, uint64_t seed) {
  uint64_t x = seed | 1;
  for (std::byte& b : out) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<std::byte>(x >> 24);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json test = nlohmann::json::parse(data, data + size, nullptr,
                                              /*allow_exceptions=*/false);
  if (!test.is_object()) return 0;
  webnnm::ir::Limits limits;
  limits.max_tensor_bytes = 1 << 16;  // keep every run well under a second
  limits.max_dimension = 1 << 16;
  absl::StatusOr<webnnm::conformance::Case> c;
  try {
    c = webnnm::conformance::BuildCase(test, limits);
  } catch (const nlohmann::json::exception&) {
    return 0;  // JSON of the wrong shape: the runner reports it the same way
  }
  if (!c.ok()) return 0;
  static auto backend = *webnnm::backends::CreateBackend("cpu");
  webnnm::backends::CompileOptions options;
  options.limits = limits;
  auto exe = backend->Compile(c->graph, options);
  if (!exe.ok()) return 0;
  for (const auto& input : c->inputs) {
    int i = (*exe)->FindInput(input.name);
    if (i < 0 || (*exe)->input(i).size() != input.bytes.size()) {
      __builtin_trap();  // the executable disagrees with the graph it built
    }
    std::memcpy((*exe)->input(i).data(), input.bytes.data(),
                input.bytes.size());
  }
  if (!(*exe)->Run().ok()) return 0;
  uint64_t seed = std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char*>(data), size));
  for (size_t i = 0; i < (*exe)->inputs().size(); ++i) {
    FillBytes((*exe)->input(i), seed + i);
  }
  (void)(*exe)->Run();
  return 0;
}
