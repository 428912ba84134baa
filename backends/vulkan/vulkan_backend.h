// The Vulkan compute backend (backend.h): GLSL compute shaders, one file
// per operation family, run on the device Device::Open chooses.
#ifndef WEBNNM_BACKENDS_VULKAN_VULKAN_BACKEND_H_
#define WEBNNM_BACKENDS_VULKAN_VULKAN_BACKEND_H_

#include <memory>

#include "absl/status/statusor.h"
#include "backends/backend.h"

namespace webnnm::backends::vulkan {

// Opens the device (Unavailable, naming what is missing, when there is no
// usable Vulkan device).
absl::StatusOr<std::unique_ptr<Backend>> CreateVulkanBackend();

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_VULKAN_BACKEND_H_
