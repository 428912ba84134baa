#include "backends/cpu/cpu_backend.h"

#include "backends/cpu/executable.h"
#include "backends/cpu/kernel.h"

namespace webnnm::backends::cpu {
namespace {

class CpuBackend : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }

  // Every kernel takes every type its operation's rule allows.
  bool Supports(ir::OpKind op, ir::DType dtype) const override {
    const ir::OpDef& def = ir::GetOp(op);
    if (FindKernel(op) == nullptr || def.operands.empty()) return false;
    for (const ir::OperandSpec& spec : def.operands) {
      if (spec.in_type_group) return spec.types.Contains(dtype);
    }
    return def.operands[0].types.Contains(dtype);
  }

  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const ir::Graph& graph, const CompileOptions& options) override {
    absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
        CpuExecutable::Compile(graph, options);
    if (!exe.ok()) return exe.status();
    return std::unique_ptr<Executable>(std::move(*exe));
  }
};

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace webnnm::backends::cpu
