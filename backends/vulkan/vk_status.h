// Vulkan results as absl::Status values: every failing call becomes a
// Status that names the call and its VkResult (VK_ERROR_OUT_OF_DEVICE_MEMORY,
// ...), never an abort.
#ifndef WEBNNM_BACKENDS_VULKAN_VK_STATUS_H_
#define WEBNNM_BACKENDS_VULKAN_VK_STATUS_H_

#include <vulkan/vulkan.h>

#include <string_view>

#include "absl/status/status.h"

namespace webnnm::backends::vulkan {

// "VK_ERROR_DEVICE_LOST", ...; "VkResult(<n>)" for a code we do not name.
std::string VkResultName(VkResult result);

// OK for VK_SUCCESS; otherwise an error naming `what` and the result
// (ResourceExhausted for out-of-memory results, Unavailable for a lost or
// missing device, Internal otherwise).
absl::Status VkStatus(VkResult result, std::string_view what);

}  // namespace webnnm::backends::vulkan

// Returns from the enclosing function when the Vulkan call fails.
#define VK_RETURN_IF_ERROR(call)                             \
  do {                                                       \
    absl::Status vk_status_ =                                \
        ::webnnm::backends::vulkan::VkStatus((call), #call); \
    if (!vk_status_.ok()) return vk_status_;                 \
  } while (false)

#endif  // WEBNNM_BACKENDS_VULKAN_VK_STATUS_H_
