// A graph compiled for a Vulkan device.
//
// Every value lives in one device-local buffer: graph inputs, parameters,
// constants and the values outputs read each have their own range;
// intermediates share an arena by liveness (the CPU backend's plan). The
// caller reads and writes a host-visible staging buffer (input(i),
// output(i)). Compile records the whole graph into one command buffer —
// copy the inputs in, every dispatch with a barrier after it, copy the
// outputs out — so that Run() is one submission and one wait. Constants are
// uploaded once, at compile time.
//
// Carried values (CompileOptions::carries: a training step's parameters
// and momenta) never leave the device: each carried pair has two ranges,
// the input's and the output's, and the graph is recorded twice — even
// runs read the input's range and write the output's, odd runs the other
// way round (ping/pong). What the host writes into a carried input is
// copied in before the next run; Current() copies a carried value back.
//
// Limits: a binding covers at most maxStorageBufferRange bytes (128 MiB on
// lavapipe). Larger tensors are split over several dispatches on aligned
// sub-ranges (element-wise planners, copies, and operations whose rows are
// independent: row_split.h); where none of those applies, a
// ResourceExhausted error names the operation.
#ifndef WEBNNM_BACKENDS_VULKAN_EXECUTABLE_H_
#define WEBNNM_BACKENDS_VULKAN_EXECUTABLE_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/kernels/kernel.h"

namespace webnnm::backends::vulkan {

class VulkanExecutable : public Executable {
 public:
  static absl::StatusOr<std::unique_ptr<VulkanExecutable>> Compile(
      std::shared_ptr<Device> device, const ir::Graph& graph,
      const CompileOptions& options);
  ~VulkanExecutable() override;

  std::span<std::byte> input(size_t i) override;
  std::span<const std::byte> output(size_t i) const override;
  absl::StatusOr<std::span<const std::byte>> Current(size_t i) override;
  absl::Status Run() override;
  size_t intermediate_bytes() const override { return arena_bytes_; }
  std::vector<std::string> implementations() const override;
  void SetRandomState(uint64_t seed, uint64_t step) override {
    seed_ = seed;
    step_ = step;
  }

 private:
  class Compiler;  // compile.cc
  explicit VulkanExecutable(std::shared_ptr<Device> device)
      : device_(std::move(device)) {}
  // A carried pair: the input's range and the output's. `swaps` is false
  // when the output is the input itself.
  struct Carried {
    int output = -1, input = -1;
    Range home, away;
    bool swaps = false;
  };
  // Resolves the carries once the inputs and outputs are known.
  absl::Status SetCarries(const ir::Graph& graph,
                          const std::vector<CarrySpec>& specs);
  // Where `r` is on a run of `parity` (odd runs swap carried ranges).
  Range OnParity(const Range& r, int parity) const;
  // Where carried pair `c`'s input is read by the next run.
  Range CurrentRange(const Carried& c) const;
  // Descriptor sets for the dispatches, then one command buffer per
  // parity (one when nothing swaps).
  absl::Status Record(const std::vector<Dispatch>& dispatches,
                      const std::vector<const Pipeline*>& pipelines);
  absl::Status RecordParity(const std::vector<Dispatch>& dispatches,
                            const std::vector<const Pipeline*>& pipelines,
                            int parity, VkCommandBuffer commands);
  absl::Status Upload(const std::vector<std::pair<Range, const void*>>& data);
  // One submission of `copies` from buffer `from` to buffer `to`, ordered
  // after every earlier submission's writes and visible to the host.
  absl::Status CopyOnce(VkBuffer from, VkBuffer to,
                        const std::vector<VkBufferCopy>& copies);

  std::shared_ptr<Device> device_;
  std::unique_ptr<Buffer> memory_;   // device-local: every value
  std::unique_ptr<Buffer> staging_;  // host-visible: inputs, then outputs
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  // Where each input and output is: in `memory_` and in `staging_`.
  std::vector<Range> input_ranges_, output_ranges_;
  std::vector<uint64_t> input_staging_, output_staging_;
  std::vector<std::string> names_;
  size_t arena_bytes_ = 0;
  // randomUniform's state (key, step) in `memory_` and in `staging_`.
  Range random_range_;
  uint64_t random_staging_ = 0;
  uint64_t seed_ = 0, step_ = 0;
  std::vector<Carried> carried_;
  std::vector<int> carried_input_;    // per input: index in carried_, or -1
  std::vector<bool> carried_output_;  // per output
  std::vector<bool> host_wrote_;      // per input: written since the last run
  int parity_ = 0;
};

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_EXECUTABLE_H_
