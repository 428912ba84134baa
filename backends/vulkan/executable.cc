#include "backends/vulkan/executable.h"

#include <algorithm>
#include <cstring>

#include "backends/vulkan/vk_status.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

VulkanExecutable::~VulkanExecutable() {
  VkDevice d = device_->handle();
  if (fence_ != VK_NULL_HANDLE) vkDestroyFence(d, fence_, nullptr);
  if (descriptors_ != VK_NULL_HANDLE) {
    vkDestroyDescriptorPool(d, descriptors_, nullptr);
  }
  if (pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(d, pool_, nullptr);
}

absl::Status VulkanExecutable::SetCarries(const ir::Graph& graph,
                                          const std::vector<CarrySpec>& specs) {
  ASSIGN_OR_RETURN(auto pairs, ResolveCarries(graph, specs));
  carried_input_.assign(inputs_.size(), -1);
  carried_output_.assign(outputs_.size(), false);
  host_wrote_.assign(inputs_.size(), true);
  for (const auto& [out, in] : pairs) {
    Carried c{out, in, input_ranges_[in], output_ranges_[out]};
    c.swaps = c.home.offset != c.away.offset;
    carried_input_[in] = static_cast<int>(carried_.size());
    carried_output_[out] = true;
    carried_.push_back(c);
  }
  return absl::OkStatus();
}

Range VulkanExecutable::OnParity(const Range& r, int parity) const {
  if (parity == 0) return r;
  auto within = [&](const Range& whole) {
    return r.offset >= whole.offset && r.offset < whole.offset + whole.bytes;
  };
  for (const Carried& c : carried_) {
    if (!c.swaps) continue;
    // Ranges are whole values or sub-ranges of one value (a split).
    if (within(c.home))
      return {r.offset - c.home.offset + c.away.offset, r.bytes};
    if (within(c.away))
      return {r.offset - c.away.offset + c.home.offset, r.bytes};
  }
  return r;
}

Range VulkanExecutable::CurrentRange(const Carried& c) const {
  return OnParity(c.home, parity_);
}

absl::Status VulkanExecutable::Record(
    const std::vector<Dispatch>& dispatches,
    const std::vector<const Pipeline*>& pipelines) {
  VkDevice d = device_->handle();
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_RETURN_IF_ERROR(vkCreateFence(d, &fence, nullptr, &fence_));
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.queueFamilyIndex = device_->queue_family();
  VK_RETURN_IF_ERROR(vkCreateCommandPool(d, &pool, nullptr, &pool_));
  const bool swaps = std::any_of(carried_.begin(), carried_.end(),
                                 [](const Carried& c) { return c.swaps; });
  const uint32_t parities = swaps ? 2 : 1;
  VkCommandBufferAllocateInfo alloc{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = parities;
  VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(d, &alloc, commands_));
  if (!dispatches.empty()) {
    uint32_t total = 0;
    for (const Dispatch& x : dispatches) {
      total += static_cast<uint32_t>(x.bindings.size());
    }
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              total * parities};
    VkDescriptorPoolCreateInfo info{
        VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = static_cast<uint32_t>(dispatches.size()) * parities;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    VK_RETURN_IF_ERROR(
        vkCreateDescriptorPool(d, &info, nullptr, &descriptors_));
  }
  for (uint32_t parity = 0; parity < parities; ++parity) {
    RETURN_IF_ERROR(RecordParity(dispatches, pipelines,
                                 static_cast<int>(parity), commands_[parity]));
  }
  return absl::OkStatus();
}

absl::Status VulkanExecutable::RecordParity(
    const std::vector<Dispatch>& dispatches,
    const std::vector<const Pipeline*>& pipelines, int parity,
    VkCommandBuffer commands) {
  VkDevice d = device_->handle();
  // One descriptor set per dispatch, written once.
  std::vector<VkDescriptorSet> sets(dispatches.size());
  for (size_t i = 0; i < dispatches.size(); ++i) {
    VkDescriptorSetAllocateInfo set{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    set.descriptorPool = descriptors_;
    set.descriptorSetCount = 1;
    set.pSetLayouts = &pipelines[i]->set_layout;
    VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(d, &set, &sets[i]));
    const std::vector<Range>& b = dispatches[i].bindings;
    std::vector<VkDescriptorBufferInfo> buffers(b.size());
    std::vector<VkWriteDescriptorSet> writes(b.size());
    for (size_t k = 0; k < b.size(); ++k) {
      const Range r = OnParity(b[k], parity);
      // 8-bit tensors are accessed as whole words: the range covers the
      // padding after the last element (ranges are 64-byte aligned).
      buffers[k] = {memory_->handle(), r.offset,
                    std::max<uint64_t>(AlignUp(r.bytes, 4), 4)};
      writes[k] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[k].dstSet = sets[i];
      writes[k].dstBinding = static_cast<uint32_t>(k);
      writes[k].descriptorCount = 1;
      writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[k].pBufferInfo = &buffers[k];
    }
    vkUpdateDescriptorSets(d, static_cast<uint32_t>(writes.size()),
                           writes.data(), 0, nullptr);
  }

  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK_RETURN_IF_ERROR(vkBeginCommandBuffer(commands, &begin));
  auto barrier = [&](VkPipelineStageFlags from, VkAccessFlags from_access,
                     VkPipelineStageFlags to, VkAccessFlags to_access) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = from_access;
    b.dstAccessMask = to_access;
    vkCmdPipelineBarrier(commands, from, to, 0, 1, &b, 0, nullptr, 0, nullptr);
  };
  // What earlier submissions wrote on the device (the previous run's
  // carried values, copies of carried inputs from the host) is visible to
  // this run's copies and shaders, and their reads finish before this run
  // overwrites what they read.
  barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  // The inputs, from staging into their device ranges (carried ones are
  // already on the device).
  std::vector<VkBufferCopy> in;
  for (size_t i = 0; i < input_ranges_.size(); ++i) {
    if (carried_input_[i] >= 0) continue;
    in.push_back({input_staging_[i], input_ranges_[i].offset,
                  std::max<uint64_t>(input_ranges_[i].bytes, 1)});
  }
  if (random_range_.bytes > 0) {
    in.push_back({random_staging_, random_range_.offset, 16});
  }
  if (!in.empty()) {
    vkCmdCopyBuffer(commands, staging_->handle(), memory_->handle(),
                    static_cast<uint32_t>(in.size()), in.data());
  }
  // The copies land before any shader reads an input, and before the copy
  // out reads one directly (an output that is an input).
  barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
              VK_ACCESS_TRANSFER_READ_BIT);
  for (size_t i = 0; i < dispatches.size(); ++i) {
    const Dispatch& x = dispatches[i];
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                      pipelines[i]->pipeline);
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                            pipelines[i]->layout, 0, 1, &sets[i], 0, nullptr);
    std::vector<uint32_t> push = x.push;
    push.resize(x.shader->push_bytes / 4, 0);
    vkCmdPushConstants(commands, pipelines[i]->layout,
                       VK_SHADER_STAGE_COMPUTE_BIT, 0, x.shader->push_bytes,
                       push.data());
    vkCmdDispatch(commands, x.groups[0], x.groups[1], x.groups[2]);
    // This dispatch's writes are visible to the next ones (which may read
    // them), and its reads finish before a later dispatch reuses the same
    // arena bytes (write-after-read).
    barrier(
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
            VK_ACCESS_TRANSFER_READ_BIT);
  }
  // The outputs, back to staging (carried ones stay on the device).
  std::vector<VkBufferCopy> out;
  for (size_t i = 0; i < output_ranges_.size(); ++i) {
    if (carried_output_[i]) continue;
    out.push_back({OnParity(output_ranges_[i], parity).offset,
                   output_staging_[i],
                   std::max<uint64_t>(output_ranges_[i].bytes, 1)});
  }
  if (!out.empty()) {
    vkCmdCopyBuffer(commands, memory_->handle(), staging_->handle(),
                    static_cast<uint32_t>(out.size()), out.data());
  }
  // The results are visible to the host once the fence signals.
  barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  VK_RETURN_IF_ERROR(vkEndCommandBuffer(commands));
  return absl::OkStatus();
}

absl::Status VulkanExecutable::Upload(
    const std::vector<std::pair<Range, const void*>>& data) {
  if (data.empty()) return absl::OkStatus();
  uint64_t total = 0;
  for (const auto& [r, p] : data) total = AlignUp(total + r.bytes, 64);
  ASSIGN_OR_RETURN(std::unique_ptr<Buffer> staging,
                   device_->CreateBuffer(total, true));
  std::vector<VkBufferCopy> copies;
  uint64_t at = 0;
  for (const auto& [r, p] : data) {
    std::memcpy(staging->mapped() + at, p, r.bytes);
    copies.push_back({at, r.offset, r.bytes});
    at = AlignUp(at + r.bytes, 64);
  }
  return CopyOnce(staging->handle(), memory_->handle(), copies);
}

absl::Status VulkanExecutable::CopyOnce(
    VkBuffer from, VkBuffer to, const std::vector<VkBufferCopy>& copies) {
  VkDevice d = device_->handle();
  VkCommandBufferAllocateInfo alloc{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer once = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(d, &alloc, &once));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  absl::Status status =
      VkStatus(vkBeginCommandBuffer(once, &begin), "vkBeginCommandBuffer");
  if (status.ok()) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    // Earlier runs' shader writes are visible to this copy, and their
    // reads finish before it overwrites what they read.
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask =
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(
        once,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
    vkCmdCopyBuffer(once, from, to, static_cast<uint32_t>(copies.size()),
                    copies.data());
    // The copy is visible to the host once the fence signals.
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(once, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0,
                         nullptr);
    status = VkStatus(vkEndCommandBuffer(once), "vkEndCommandBuffer");
  }
  // The fence wait orders the copy before every later submission.
  if (status.ok()) status = device_->Submit(once, fence_);
  vkFreeCommandBuffers(d, pool_, 1, &once);
  return status;
}

std::span<std::byte> VulkanExecutable::input(size_t i) {
  host_wrote_[i] = true;
  return {staging_->mapped() + input_staging_[i], inputs_[i].byte_size};
}

std::span<const std::byte> VulkanExecutable::output(size_t i) const {
  if (carried_output_[i]) return {};
  return {staging_->mapped() + output_staging_[i], outputs_[i].byte_size};
}

absl::StatusOr<std::span<const std::byte>> VulkanExecutable::Current(size_t i) {
  std::span<const std::byte> staged{staging_->mapped() + input_staging_[i],
                                    inputs_[i].byte_size};
  const int k = carried_input_[i];
  if (k < 0 || host_wrote_[i]) return staged;
  const Range r = CurrentRange(carried_[k]);
  RETURN_IF_ERROR(CopyOnce(
      memory_->handle(), staging_->handle(),
      {{r.offset, input_staging_[i], std::max<uint64_t>(r.bytes, 1)}}));
  return staged;
}

absl::Status VulkanExecutable::Run() {
  if (random_range_.bytes > 0) {
    // The CPU backend's key and counter (backends/cpu/kernels/random.cc).
    const uint64_t key = seed_ ^ (step_ >> 32) * 0x9E3779B97F4A7C15ull;
    const uint32_t state[4] = {static_cast<uint32_t>(key),
                               static_cast<uint32_t>(key >> 32),
                               static_cast<uint32_t>(step_), 0};
    std::memcpy(staging_->mapped() + random_staging_, state, sizeof state);
  }
  // Carried inputs the host wrote since the last run, into the range the
  // run reads.
  std::vector<VkBufferCopy> written;
  for (const Carried& c : carried_) {
    if (!host_wrote_[c.input]) continue;
    written.push_back({input_staging_[c.input], CurrentRange(c).offset,
                       std::max<uint64_t>(c.home.bytes, 1)});
  }
  if (!written.empty()) {
    RETURN_IF_ERROR(CopyOnce(staging_->handle(), memory_->handle(), written));
    for (const Carried& c : carried_) host_wrote_[c.input] = false;
  }
  RETURN_IF_ERROR(device_->Submit(commands_[parity_], fence_));
  if (commands_[1] != VK_NULL_HANDLE) parity_ ^= 1;
  ++step_;
  return absl::OkStatus();
}

std::vector<std::string> VulkanExecutable::implementations() const {
  return names_;
}

}  // namespace webnnm::backends::vulkan
