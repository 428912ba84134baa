// CpuExecutable: a compiled graph on the CPU backend.
//
// Compile() orders the operations, checks each with its rule again (the
// kernels trust the types they are given), gives every tensor its buffer —
// inputs, parameters and outputs their own, constants a copy of their data,
// intermediates a place in one arena shared by liveness (memory_plan.h) —
// and makes each operation's kernel with those buffers bound — one kernel
// for a matmul's post-op chain (fusion.h) and one for each group of small
// element-wise operations (elementwise_groups.h). Run() just runs the
// kernels in order. A carried output computed by an element-wise group is
// written into its input's buffer when nothing reads the input afterwards.
#ifndef WEBNNM_BACKENDS_CPU_EXECUTABLE_H_
#define WEBNNM_BACKENDS_CPU_EXECUTABLE_H_

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/profile.h"

namespace webnnm::backends::cpu {

class CpuExecutable : public Executable {
 public:
  static absl::StatusOr<std::unique_ptr<CpuExecutable>> Compile(
      const ir::Graph& graph, const CompileOptions& options);
  ~CpuExecutable() override;

  std::span<std::byte> input(size_t i) override;
  std::span<const std::byte> output(size_t i) const override;
  absl::Status Run() override;
  size_t intermediate_bytes() const override { return arena_size_; }
  std::vector<std::string> implementations() const override;
  void SetRandomState(uint64_t seed, uint64_t step) override {
    context_.SetRandomState(seed, step);
  }
  // How many carried outputs are computed straight into their input's
  // buffer (compile_rewrites.cc's PlanInPlaceCarries): nothing to copy after a
  // run.
  int in_place_carries() const { return in_place_carries_; }

 private:
  explicit CpuExecutable(int threads) : context_(threads) {}

  class Compiler;  // compiler.h
  static constexpr size_t kAlignment = 64;

  // 64-byte aligned storage.
  struct Buffer {
    std::unique_ptr<std::byte[], void (*)(std::byte*)> data{nullptr, nullptr};
    size_t size = 0;
  };
  static Buffer Allocate(size_t bytes);

  CpuContext context_;
  std::vector<Buffer> buffers_;  // inputs, constants, outputs, the arena
  size_t arena_size_ = 0;
  std::vector<std::span<std::byte>> input_views_;
  std::vector<std::span<const std::byte>> output_views_;
  // Carried (output, input) pairs: copied after each run unless the output
  // was computed in place (in_place_carries_ of them).
  std::vector<std::pair<int, int>> carries_;
  std::vector<bool> carried_output_;  // by output: one of carries_'
  int in_place_carries_ = 0;
  // (input, own buffer of an output that is a carried input): copied
  // before the carries overwrite the input.
  std::vector<std::pair<int, std::byte*>> kept_inputs_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::vector<std::string> kernel_names_;   // the op of each kernel
  std::unique_ptr<KernelProfile> profile_;  // WEBNNM_CPU_PROFILE only
};

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_EXECUTABLE_H_
