// What an operation becomes on the Vulkan backend: one or more dispatches
// of the embedded shaders, planned once at compile time. A planner sees
// the operation's node, its operand and result types and where each lives
// in the executable's device buffer, and returns the dispatches (the
// pipeline's shader and specialization constants, the buffer range of each
// binding, the push constants and the workgroup counts); the executable
// records them, in order, with a barrier after each.
#ifndef WEBNNM_BACKENDS_VULKAN_KERNELS_KERNEL_H_
#define WEBNNM_BACKENDS_VULKAN_KERNELS_KERNEL_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/common/shape_util.h"
#include "backends/vulkan/shaders.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"

namespace webnnm::backends::vulkan {

// A byte range of the executable's device buffer.
struct Range {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct Dispatch {
  const Shader* shader = nullptr;
  std::vector<uint32_t> spec;      // specialization constants 0, 1, ...
  std::vector<Range> bindings;     // one per shader binding
  std::vector<uint32_t> push;      // the push constants, word by word
  uint32_t groups[3] = {1, 1, 1};  // workgroup counts
};

struct OpIO {
  const ir::Node& node;
  std::vector<const ir::TensorType*> in_types;  // nullptr: absent
  std::vector<const ir::TensorType*> out_types;
  std::vector<Range> in, out;
  uint32_t max_groups = 65535;      // the device's maxComputeWorkGroupCount[0]
  uint64_t max_range = 1ull << 27;  // maxStorageBufferRange: one binding
  uint64_t alignment = 256;         // of a binding's offset
  bool subgroups = false;           // Device::subgroups()
  bool float16_storage = false;     // Device::float16_storage()
  // The type the operation has in the graph (in_types may be widened:
  // plan_node.h).
  ir::DType narrow_type = ir::DType::kFloat32;
  // randomUniform: the executable's random state (key, step; written before
  // each run) and this operation's stream.
  Range random_state;
  uint32_t random_stream = 0;
  const ir::Attrs& attrs() const { return node.attrs; }
};

using Planner = absl::StatusOr<std::vector<Dispatch>> (*)(const OpIO& io);

// Whether `op` only moves its elements' bits (data movement, where, tile,
// pad, triangular, the gathers and scatters).
bool MovesBits(ir::OpKind op);
// Whether `op`'s planner reads and writes float16 itself when the device
// has 16-bit storage (OpIO::float16_storage) instead of running widened.
bool HasFloat16Variant(ir::OpKind op);
// The planner of `op`, or nullptr when the backend lacks it.
Planner FindPlanner(ir::OpKind op);
// Whether `op` runs on `dtype` (the type its rule checks first: the first
// operand's, or the values' for where; cast: both of its types).
bool Supports(ir::OpKind op, ir::DType dtype);

// Helpers for planners.
// The largest rank an operand has (WebNN's, ir::Limits::max_rank): what
// the strided shaders take (shaders.h).
inline constexpr int kMaxRank = kStridedRank;
static_assert(ir::Limits{}.max_rank <= kMaxRank,
              "the shaders take fewer dimensions than a graph may have");
// Unimplemented (naming the rank) above `most` dimensions.
absl::Status CheckRank(size_t rank, int most = kMaxRank);
// BroadcastStrides (right-aligned; 0 where the operand is broadcast)
// padded with 0 to kMaxRank, as the shaders' push constants take them.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& out);
// Dimensions a shader walks in row-major order, with each tensor's stride
// along each: strides[t][d].
struct Walk {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;
};
// `walk` over fewer dimensions, visiting the same offsets in the same
// order: its size-1 dimensions dropped, and each dimension merged into the
// one before it where, in every tensor, the outer stride is the inner
// stride times the inner size (as for a row-major tensor's neighbouring
// dimensions, unless one between them was left out of the walk). Lets
// reduce.comp and norm.comp, with few dimensions per group, take rank 8.
Walk FoldDims(const Walk& walk);
// One dispatch of copy.comp moving the first `words` 32-bit words of
// `from` to `to` (both bound as they are).
Dispatch FlatCopy(const OpIO& io, Range from, Range to, int64_t words);
// The gather shaders' index type code: 0 int32, 1 uint32, 2 int64,
// 3 uint64 (Unimplemented otherwise).
absl::StatusOr<uint32_t> IndexKind(ir::DType dtype);
// `shape` seen as [outer, length, inner] around `axis` (InvalidArgument
// when the axis is out of range).
struct AxisSplit {
  int64_t outer = 1, length = 1, inner = 1;
};
absl::StatusOr<AxisSplit> SplitAt(const std::vector<int64_t>& shape,
                                  int64_t axis);
inline uint32_t Word(float v) {
  uint32_t w;
  std::memcpy(&w, &v, 4);
  return w;
}
inline uint32_t Word(int64_t v) { return static_cast<uint32_t>(v); }
// 32-bit words per element for the shaders that copy bits (2 for 64-bit
// types, else 1).
inline uint32_t ElementWords(ir::DType dtype) {
  return ir::RuntimeElementSize(dtype) == 8 ? 2 : 1;
}
// Workgroups for a grid-stride loop over `n` elements, `size` per group.
uint32_t GridGroups(int64_t n, uint32_t size, uint32_t max_groups);
// Row-major strides and element counts: the index arithmetic both backends
// share (backends/common/shape_util.h).
inline int64_t Count(const std::vector<int64_t>& shape) {
  return ElementCount(shape);
}

// The family planners (one file each).
absl::StatusOr<std::vector<Dispatch>> PlanUnary(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanBinary(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanMovement(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanMatmul(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanReduce(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanSoftmax(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanPredicate(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanWhere(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanCast(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanArgReduce(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanConv(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanPool(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanMaxPoolGradient(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanGather(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanRandom(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanNorm(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanRemap(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanScan(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanGatherElements(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanGatherNd(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanScatter(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanResample(const OpIO& io);
absl::StatusOr<std::vector<Dispatch>> PlanQuantize(const OpIO& io);

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_KERNELS_KERNEL_H_
