// Test helpers for one kernel at a time (header-only, for gtest files):
// deterministic random tensors, and one operation run on the CPU backend
// with the kernel it got.
#ifndef WEBNNM_BACKENDS_CPU_TESTING_ONE_KERNEL_H_
#define WEBNNM_BACKENDS_CPU_TESTING_ONE_KERNEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu::testing {

// Deterministic values in [low, high) (xorshift from `seed`).
inline Tensor Random(ir::DType dtype, std::vector<int64_t> shape, uint32_t seed,
                     double low = -2, double high = 2) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Tensor t{dtype, std::move(shape), {}};
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    t.values.push_back(low + (high - low) * (state / 4294967296.0));
  }
  return t;
}

// An operation's results, every one after another, and its kernel's
// implementation; `reference`: CompileOptions::reference_kernels, oneDNN
// at every size otherwise.
struct Ran {
  std::vector<double> values;
  std::string implementation;
};

inline Ran RunOnce(const std::string& op,
                   const std::vector<std::optional<Tensor>>& operands,
                   const ir::Attrs& attrs, bool reference) {
  std::vector<std::string> implementations;
  RunOptions options{.reference_kernels = reference,
                     .library_minimum_elements = 0,
                     .implementations = &implementations};
  auto results = RunOp(op, operands, attrs, options);
  EXPECT_TRUE(results.ok()) << op << ": " << results.status();
  if (!results.ok() || implementations.size() != 1) return {};
  Ran ran{{}, implementations.front()};
  for (const Tensor& result : *results) {  // every result, one after another
    ran.values.insert(ran.values.end(), result.values.begin(),
                      result.values.end());
  }
  return ran;
}

}  // namespace webnnm::backends::cpu::testing

#endif  // WEBNNM_BACKENDS_CPU_TESTING_ONE_KERNEL_H_
