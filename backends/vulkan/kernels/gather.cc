// gather along an axis (gather.comp) and randomUniform (random.comp).
#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {

absl::StatusOr<std::vector<Dispatch>> PlanGather(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  const int64_t axis = io.attrs().GetInt("axis", 0);
  if (axis < 0 || axis >= rank) {
    return absl::InvalidArgumentError("gather axis out of range");
  }
  ASSIGN_OR_RETURN(uint32_t index_kind, IndexKind(io.in_types[1]->dtype));
  int64_t inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < rank; ++d) inner *= in[d];
  const int64_t total = Count(io.out_types[0]->shape);
  Dispatch d;
  d.shader = &GatherShader();
  d.spec = {ElementWords(io.in_types[0]->dtype), index_kind};
  d.bindings = {io.in[0], io.in[1], io.out[0]};
  d.push = {Word(total), Word(Count(io.in_types[1]->shape)), Word(inner),
            Word(in[axis])};
  d.groups[0] = GridGroups(total, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanRandom(const OpIO& io) {
  if (io.random_state.bytes == 0) {
    return absl::InternalError("no random state for randomUniform");
  }
  const int64_t n = Count(io.out_types[0]->shape);
  Dispatch d;
  d.shader = &RandomShader();
  d.spec = {io.out_types[0]->dtype == ir::DType::kFloat16 ? 1u : 0u};
  d.bindings = {io.random_state, io.out[0]};
  d.push = {Word(n), io.random_stream};
  d.groups[0] = GridGroups((n + 3) / 4, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

}  // namespace webnnm::backends::vulkan
