#include "backends/vulkan/vk_status.h"

#include <string>

#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {

std::string VkResultName(VkResult result) {
  switch (result) {
#define WEBNNM_VK_NAME(code) \
  case code:                 \
    return #code;
    WEBNNM_VK_NAME(VK_SUCCESS)
    WEBNNM_VK_NAME(VK_NOT_READY)
    WEBNNM_VK_NAME(VK_TIMEOUT)
    WEBNNM_VK_NAME(VK_INCOMPLETE)
    WEBNNM_VK_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    WEBNNM_VK_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    WEBNNM_VK_NAME(VK_ERROR_INITIALIZATION_FAILED)
    WEBNNM_VK_NAME(VK_ERROR_DEVICE_LOST)
    WEBNNM_VK_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    WEBNNM_VK_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    WEBNNM_VK_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    WEBNNM_VK_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    WEBNNM_VK_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    WEBNNM_VK_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    WEBNNM_VK_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    WEBNNM_VK_NAME(VK_ERROR_FRAGMENTED_POOL)
    WEBNNM_VK_NAME(VK_ERROR_UNKNOWN)
    WEBNNM_VK_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    WEBNNM_VK_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    WEBNNM_VK_NAME(VK_ERROR_FRAGMENTATION)
    WEBNNM_VK_NAME(VK_PIPELINE_COMPILE_REQUIRED)
#undef WEBNNM_VK_NAME
    default:
      return StrCat("VkResult(", static_cast<int>(result), ")");
  }
}

absl::Status VkStatus(VkResult result, std::string_view what) {
  if (result == VK_SUCCESS) return absl::OkStatus();
  std::string message = StrCat(what, " failed: ", VkResultName(result));
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_FRAGMENTATION:
      return absl::ResourceExhaustedError(message);
    case VK_ERROR_DEVICE_LOST:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_INITIALIZATION_FAILED:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace webnnm::backends::vulkan
