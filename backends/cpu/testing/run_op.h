// Test helpers for the CPU kernels: build a one-operation graph from typed
// data, compile it on the CPU backend, run it and read the results back.
#ifndef WEBNNM_BACKENDS_CPU_TESTING_RUN_OP_H_
#define WEBNNM_BACKENDS_CPU_TESTING_RUN_OP_H_

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "backends/cpu/element.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends::cpu::testing {

// A tensor for a test: its type and its elements as doubles (converted to
// the type: float16 rounded to nearest even, integers truncated).
struct Tensor {
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

inline Tensor F32(std::vector<int64_t> shape, std::vector<double> values) {
  return {ir::DType::kFloat32, std::move(shape), std::move(values)};
}
inline Tensor F16(std::vector<int64_t> shape, std::vector<double> values) {
  return {ir::DType::kFloat16, std::move(shape), std::move(values)};
}
inline Tensor Of(ir::DType dtype, std::vector<int64_t> shape,
                 std::vector<double> values) {
  return {dtype, std::move(shape), std::move(values)};
}

std::vector<std::byte> Encode(const Tensor& t);
std::vector<double> Decode(ir::DType dtype, const std::byte* bytes,
                           size_t count);

// How RunOp compiles its graph.
struct RunOptions {
  bool constants = false;          // operands as constants rather than inputs
  bool reference_kernels = false;  // CompileOptions::reference_kernels
  // CompileOptions::library_minimum_elements (tests of the oneDNN kernels
  // set 0: oneDNN at every size).
  int64_t library_minimum_elements = 4096;
  // When set, receives Executable::implementations().
  std::vector<std::string>* implementations = nullptr;
};

// Runs operation `op` on `operands` (std::nullopt: absent). Operands are
// graph inputs, or constants when `constants` is true. Returns the results.
absl::StatusOr<std::vector<Tensor>> RunOp(
    const std::string& op, const std::vector<std::optional<Tensor>>& operands,
    const ir::Attrs& attrs = {}, bool constants = false);
absl::StatusOr<std::vector<Tensor>> RunOp(
    const std::string& op, const std::vector<std::optional<Tensor>>& operands,
    const ir::Attrs& attrs, const RunOptions& options);

// The first result of RunOp, or an empty tensor with dtype float32 and no
// values when it failed (tests assert on the status separately).
Tensor RunOne(const std::string& op,
              const std::vector<std::optional<Tensor>>& operands,
              const ir::Attrs& attrs = {});

ir::Attrs A(
    std::initializer_list<std::pair<std::string, ir::AttrValue>> values);

}  // namespace webnnm::backends::cpu::testing

#endif  // WEBNNM_BACKENDS_CPU_TESTING_RUN_OP_H_
