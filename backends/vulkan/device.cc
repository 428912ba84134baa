#include "backends/vulkan/device.h"

#include <cstdlib>
#include <cstring>

#include "backends/vulkan/vk_status.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

// Whether environment variable `name` is "0" (a device feature turned off).
bool TurnedOff(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string(value) == "0";
}

int Rank(const VkPhysicalDeviceProperties& p) {
  switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    default:
      return 3;  // CPU (lavapipe) and others
  }
}

}  // namespace

Buffer::~Buffer() {
  if (mapped_ != nullptr) vkUnmapMemory(device_, memory_);
  vkDestroyBuffer(device_, buffer_, nullptr);
  vkFreeMemory(device_, memory_, nullptr);
}

absl::StatusOr<std::shared_ptr<Device>> Device::Open() {
  std::shared_ptr<Device> device(new Device());
  absl::Status status = device->Init();
  if (!status.ok()) return status;
  return device;
}

absl::Status Device::Init() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "webnnm";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkResult made = vkCreateInstance(&info, nullptr, &instance_);
  if (made != VK_SUCCESS) {
    return absl::UnavailableError(StrCat(
        "no Vulkan driver: vkCreateInstance failed with ", VkResultName(made),
        " (install a Vulkan driver, e.g. Debian's mesa-vulkan-drivers)"));
  }
  uint32_t count = 0;
  VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance_, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VK_RETURN_IF_ERROR(
      vkEnumeratePhysicalDevices(instance_, &count, devices.data()));
  devices.resize(count);
  if (devices.empty()) {
    return absl::UnavailableError("no Vulkan device found");
  }
  std::vector<VkPhysicalDeviceProperties> props(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    vkGetPhysicalDeviceProperties(devices[i], &props[i]);
  }
  int chosen = -1;
  if (const char* want = std::getenv("WEBNNM_VULKAN_DEVICE");
      want != nullptr && *want != '\0') {
    char* end = nullptr;
    long index = std::strtol(want, &end, 10);
    if (*end == '\0') {
      if (index < 0 || index >= static_cast<long>(devices.size())) {
        return absl::UnavailableError(StrCat("WEBNNM_VULKAN_DEVICE=", want,
                                             ": there are ", devices.size(),
                                             " Vulkan devices (0-based)"));
      }
      chosen = static_cast<int>(index);
    } else {
      for (size_t i = 0; i < devices.size() && chosen < 0; ++i) {
        if (std::strstr(props[i].deviceName, want) != nullptr) {
          chosen = static_cast<int>(i);
        }
      }
      if (chosen < 0) {
        std::string names;
        for (const auto& p : props)
          names = StrCat(names, " '", p.deviceName, "'");
        return absl::UnavailableError(StrCat("WEBNNM_VULKAN_DEVICE=", want,
                                             " names no device; there are",
                                             names));
      }
    }
  } else {
    for (size_t i = 0; i < devices.size(); ++i) {
      if (chosen < 0 || Rank(props[i]) < Rank(props[chosen])) {
        chosen = static_cast<int>(i);
      }
    }
  }
  physical_ = devices[chosen];
  properties_ = props[chosen];
  if (properties_.apiVersion < VK_API_VERSION_1_1) {
    return absl::UnavailableError(StrCat("the Vulkan device '",
                                         properties_.deviceName,
                                         "' supports only Vulkan 1.0"));
  }
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  // Subgroup operations in compute shaders (Vulkan 1.1 properties): the
  // reductions use them when the stage has basic, vote and arithmetic
  // operations, unless WEBNNM_VULKAN_SUBGROUPS=0.
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties2.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical_, &properties2);
  const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                        VK_SUBGROUP_FEATURE_VOTE_BIT |
                                        VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  subgroup_size_ = subgroup.subgroupSize;
  subgroups_ = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
               (subgroup.supportedOperations & needed) == needed &&
               !TurnedOff("WEBNNM_VULKAN_SUBGROUPS");

  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, family.data());
  bool found = false;
  for (uint32_t i = 0; i < families && !found; ++i) {
    if (family[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      found = true;
    }
  }
  if (!found) {
    return absl::UnavailableError(StrCat("the Vulkan device '",
                                         properties_.deviceName,
                                         "' has no compute queue"));
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = queue_family_;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  // float16 tensors as float16 in shaders (16-bit storage, core in Vulkan
  // 1.1) when the device has it, unless WEBNNM_VULKAN_FLOAT16=0; otherwise
  // float16 operations run widened to float32 (plan_node.h).
  VkPhysicalDevice16BitStorageFeatures storage16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &storage16;
  vkGetPhysicalDeviceFeatures2(physical_, &features);
  float16_storage_ = storage16.storageBuffer16BitAccess == VK_TRUE &&
                     !TurnedOff("WEBNNM_VULKAN_FLOAT16");
  VkPhysicalDevice16BitStorageFeatures enable16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  enable16.storageBuffer16BitAccess = float16_storage_ ? VK_TRUE : VK_FALSE;
  VkDeviceCreateInfo create{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  create.pNext = &enable16;
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  VK_RETURN_IF_ERROR(vkCreateDevice(physical_, &create, nullptr, &device_));
  {
    absl::MutexLock lock(&queue_mutex_);
    vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  }
  VkPipelineCacheCreateInfo cache{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VK_RETURN_IF_ERROR(vkCreatePipelineCache(device_, &cache, nullptr, &cache_));
  return absl::OkStatus();
}

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    for (auto& [key, p] : pipelines_) {
      vkDestroyPipeline(device_, p->pipeline, nullptr);
      vkDestroyPipelineLayout(device_, p->layout, nullptr);
      vkDestroyDescriptorSetLayout(device_, p->set_layout, nullptr);
    }
    if (cache_ != VK_NULL_HANDLE) {
      vkDestroyPipelineCache(device_, cache_, nullptr);
    }
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

absl::StatusOr<std::unique_ptr<Buffer>> Device::CreateBuffer(
    VkDeviceSize size, bool host_visible) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = std::max<VkDeviceSize>(size, 16);
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateBuffer(device_, &info, nullptr, &buffer));
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(device_, buffer, &needs);
  // Staging: host-visible and coherent (cached when there is such memory,
  // for reading results back). Otherwise: device-local.
  const VkMemoryPropertyFlags want =
      host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                   : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  const VkMemoryPropertyFlags nice =
      host_visible ? want | VK_MEMORY_PROPERTY_HOST_CACHED_BIT : want;
  int type = -1;
  for (VkMemoryPropertyFlags flags : {nice, want}) {
    for (uint32_t i = 0; i < memory_.memoryTypeCount && type < 0; ++i) {
      if ((needs.memoryTypeBits & (1u << i)) &&
          (memory_.memoryTypes[i].propertyFlags & flags) == flags) {
        type = static_cast<int>(i);
      }
    }
    if (type >= 0) break;
  }
  if (type < 0) {
    vkDestroyBuffer(device_, buffer, nullptr);
    return absl::UnavailableError("the Vulkan device has no suitable memory");
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkResult r = vkAllocateMemory(device_, &alloc, nullptr, &memory);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(device_, buffer, nullptr);
    return VkStatus(r, StrCat("vkAllocateMemory(", needs.size, " bytes)"));
  }
  r = vkBindBufferMemory(device_, buffer, memory, 0);
  void* mapped = nullptr;
  if (r == VK_SUCCESS && host_visible) {
    r = vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  }
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(device_, buffer, nullptr);
    vkFreeMemory(device_, memory, nullptr);
    return VkStatus(r, "vkBindBufferMemory/vkMapMemory");
  }
  if (mapped != nullptr) std::memset(mapped, 0, info.size);
  return std::make_unique<Buffer>(device_, buffer, memory, size, mapped);
}

absl::StatusOr<const Pipeline*> Device::GetPipeline(
    const Shader& shader, const std::vector<uint32_t>& spec) {
  absl::MutexLock lock(&pipelines_mutex_);
  auto key = std::make_pair(std::string(shader.name), spec);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) {
    return it->second.get();
  }
  // Every block is within Vulkan's guaranteed 128 bytes (shaders.cc); a
  // device may still report less.
  if (shader.push_bytes > limits().maxPushConstantsSize) {
    return absl::UnimplementedError(
        StrCat(shader.name, ".comp needs ", shader.push_bytes,
               " bytes of push constants; the device offers ",
               limits().maxPushConstantsSize));
  }
  auto p = std::make_unique<Pipeline>();
  p->bindings = shader.bindings;
  std::vector<VkDescriptorSetLayoutBinding> bindings(shader.bindings);
  for (int i = 0; i < shader.bindings; ++i) {
    bindings[i].binding = static_cast<uint32_t>(i);
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set.bindingCount = static_cast<uint32_t>(bindings.size());
  set.pBindings = bindings.data();
  VK_RETURN_IF_ERROR(
      vkCreateDescriptorSetLayout(device_, &set, nullptr, &p->set_layout));
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, shader.push_bytes};
  VkPipelineLayoutCreateInfo layout{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &p->set_layout;
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &push;
  VkResult r = vkCreatePipelineLayout(device_, &layout, nullptr, &p->layout);
  if (r != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(device_, p->set_layout, nullptr);
    return VkStatus(r, "vkCreatePipelineLayout");
  }
  VkShaderModuleCreateInfo module_info{
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = shader.words * 4;
  module_info.pCode = shader.code;
  VkShaderModule module = VK_NULL_HANDLE;
  r = vkCreateShaderModule(device_, &module_info, nullptr, &module);
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    entries[i] = {static_cast<uint32_t>(i), static_cast<uint32_t>(i * 4), 4};
  }
  VkSpecializationInfo special{static_cast<uint32_t>(entries.size()),
                               entries.data(), spec.size() * 4, spec.data()};
  VkComputePipelineCreateInfo info{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = spec.empty() ? nullptr : &special;
  info.layout = p->layout;
  if (r == VK_SUCCESS) {
    r = vkCreateComputePipelines(device_, cache_, 1, &info, nullptr,
                                 &p->pipeline);
    vkDestroyShaderModule(device_, module, nullptr);
  }
  if (r != VK_SUCCESS) {
    vkDestroyPipelineLayout(device_, p->layout, nullptr);
    vkDestroyDescriptorSetLayout(device_, p->set_layout, nullptr);
    return VkStatus(r, StrCat("creating the '", shader.name, "' pipeline"));
  }
  const Pipeline* result = p.get();
  pipelines_.emplace(std::move(key), std::move(p));
  return result;
}

absl::Status Device::Submit(VkCommandBuffer commands, VkFence fence) {
  absl::MutexLock lock(&queue_mutex_);
  VK_RETURN_IF_ERROR(vkResetFences(device_, 1, &fence));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  VK_RETURN_IF_ERROR(vkQueueSubmit(queue_, 1, &submit, fence));
  VK_RETURN_IF_ERROR(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX));
  return absl::OkStatus();
}

}  // namespace webnnm::backends::vulkan
