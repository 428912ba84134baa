// One Vulkan device, shared by every executable compiled for it: the
// instance, the chosen physical device and its limits, a compute queue,
// buffers (device-local, or host-visible for staging) and the compute
// pipelines, created once per (shader, specialization constants) through a
// VkPipelineCache.
//
// Device selection: WEBNNM_VULKAN_DEVICE picks among several devices (an
// index in enumeration order, or a substring of the device's name);
// otherwise the first discrete GPU, else an integrated one, else any (on a
// machine without a GPU, Mesa's lavapipe). No device, or none with a
// compute queue, is an Unavailable error naming what is missing.
//
// Thread-safety: Open, CreateBuffer and GetPipeline may be called from
// several threads; Submit serializes use of the queue.
#ifndef WEBNNM_BACKENDS_VULKAN_DEVICE_H_
#define WEBNNM_BACKENDS_VULKAN_DEVICE_H_

#include <vulkan/vulkan.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "backends/vulkan/shaders.h"

namespace webnnm::backends::vulkan {

// A VkBuffer with its own memory; host-visible buffers stay mapped.
class Buffer {
 public:
  Buffer(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
         VkDeviceSize size, void* mapped)
      : device_(device),
        buffer_(buffer),
        memory_(memory),
        size_(size),
        mapped_(mapped) {}
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  std::byte* mapped() const { return static_cast<std::byte*>(mapped_); }

 private:
  VkDevice device_;
  VkBuffer buffer_;
  VkDeviceMemory memory_;
  VkDeviceSize size_;
  void* mapped_;
};

struct Pipeline {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  int bindings = 0;
};

class Device {
 public:
  static absl::StatusOr<std::shared_ptr<Device>> Open();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  VkDevice handle() const { return device_; }
  uint32_t queue_family() const { return queue_family_; }
  const VkPhysicalDeviceLimits& limits() const { return properties_.limits; }
  std::string name() const { return properties_.deviceName; }
  // Whether compute shaders may use subgroup basic, vote and arithmetic
  // operations (off with WEBNNM_VULKAN_SUBGROUPS=0), and the subgroup size.
  bool subgroups() const { return subgroups_; }
  uint32_t subgroup_size() const { return subgroup_size_; }
  // Whether shaders may read and write float16 storage buffers
  // (storageBuffer16BitAccess; off with WEBNNM_VULKAN_FLOAT16=0).
  bool float16_storage() const { return float16_storage_; }

  // A storage buffer that is also a transfer source and destination:
  // device-local memory, or host-visible, coherent and mapped.
  absl::StatusOr<std::unique_ptr<Buffer>> CreateBuffer(VkDeviceSize size,
                                                       bool host_visible);
  // The compute pipeline of `shader` specialized by `spec` (constant_id 0,
  // 1, ...), created on first use. Unimplemented when the shader's
  // push-constant block exceeds the device's maxPushConstantsSize.
  absl::StatusOr<const Pipeline*> GetPipeline(
      const Shader& shader, const std::vector<uint32_t>& spec);
  // Submits `commands` and waits for `fence`, which it resets first.
  absl::Status Submit(VkCommandBuffer commands, VkFence fence);

 private:
  Device() = default;
  absl::Status Init();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  bool subgroups_ = false;
  bool float16_storage_ = false;
  uint32_t subgroup_size_ = 1;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  // Submissions to the one queue are serialized; pipelines are made once.
  absl::Mutex queue_mutex_;
  VkQueue queue_ ABSL_GUARDED_BY(queue_mutex_) = VK_NULL_HANDLE;
  absl::Mutex pipelines_mutex_;
  std::map<std::pair<std::string, std::vector<uint32_t>>,
           std::unique_ptr<Pipeline>>
      pipelines_ ABSL_GUARDED_BY(pipelines_mutex_);
};

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_DEVICE_H_
