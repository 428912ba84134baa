#include "backends/backend.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/vulkan/vulkan_backend.h"
#include "engine/base/strings.h"

namespace webnnm::backends {

int Executable::FindInput(std::string_view name) const {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Executable::FindOutput(std::string_view name) const {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(std::string_view name) {
  if (name == "cpu") return cpu::CreateCpuBackend();
  if (name == "vulkan") return vulkan::CreateVulkanBackend();
  return absl::InvalidArgumentError(
      StrCat("unknown backend '", name, "'; available: cpu, vulkan"));
}

}  // namespace webnnm::backends
