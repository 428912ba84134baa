#include "backends/vulkan/vulkan_backend.h"

#include "absl/synchronization/mutex.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/executable.h"
#include "backends/vulkan/kernels/kernel.h"
#include "backends/vulkan/plan_node.h"

namespace webnnm::backends::vulkan {
namespace {

class VulkanBackend : public Backend {
 public:
  explicit VulkanBackend(std::shared_ptr<Device> device)
      : device_(std::move(device)) {}

  std::string_view name() const override { return "vulkan"; }

  bool Supports(ir::OpKind op, ir::DType dtype) const override {
    // The recurrent operations run unrolled (executable.cc) when every
    // operation of their steps does; float32 and float16 both do.
    if (ir::GetOp(op).unroll != nullptr && FindPlanner(op) == nullptr) {
      return dtype == ir::DType::kFloat32 || dtype == ir::DType::kFloat16;
    }
    return RunsOn(op, dtype);
  }

  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const ir::Graph& graph, const CompileOptions& options) override {
    absl::StatusOr<std::unique_ptr<VulkanExecutable>> exe =
        VulkanExecutable::Compile(device_, graph, options);
    if (!exe.ok()) return exe.status();
    return std::unique_ptr<Executable>(std::move(*exe));
  }

 private:
  std::shared_ptr<Device> device_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateVulkanBackend() {
  // One device for the process: opening one costs milliseconds, and
  // pipelines are cached on it.
  static absl::Mutex mutex(absl::kConstInit);
  static std::weak_ptr<Device> shared;  // under mutex
  absl::MutexLock lock(&mutex);
  std::shared_ptr<Device> device = shared.lock();
  if (!device) {
    absl::StatusOr<std::shared_ptr<Device>> opened = Device::Open();
    if (!opened.ok()) return opened.status();
    device = *opened;
    shared = device;
  }
  return std::make_unique<VulkanBackend>(std::move(device));
}

}  // namespace webnnm::backends::vulkan
