// gatherND (gather_nd.comp) and the scatters (a copy of the input, then
// scatter.comp writing the updates).
#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {

absl::StatusOr<std::vector<Dispatch>> PlanGatherNd(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& indices = io.in_types[1]->shape;
  ASSIGN_OR_RETURN(uint32_t index_kind, IndexKind(io.in_types[1]->dtype));
  const int64_t k = indices.empty() ? 0 : indices.back();
  if (k < 1 || k > static_cast<int64_t>(in.size()) || k > kMaxRank) {
    return absl::InvalidArgumentError(StrCat("gatherND with k = ", k));
  }
  const std::vector<int64_t> strides = Strides(in);
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(k); d < in.size(); ++d) slice *= in[d];
  const int64_t total = Count(io.out_types[0]->shape);
  Dispatch d;
  d.shader = &GatherNdShader();
  d.spec = {index_kind, ElementWords(io.in_types[0]->dtype)};
  d.bindings = {io.in[0], io.in[1], io.out[0]};
  d.push = {Word(total), Word(slice), Word(k)};
  for (int i = 0; i < kMaxRank; ++i) d.push.push_back(Word(i < k ? in[i] : 1));
  for (int i = 0; i < kMaxRank; ++i)
    d.push.push_back(Word(i < k ? strides[i] : 0));
  d.groups[0] = GridGroups(total, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanScatter(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& updates = io.in_types[2]->shape;
  ASSIGN_OR_RETURN(uint32_t index_kind, IndexKind(io.in_types[1]->dtype));
  if (absl::Status s = CheckRank(in.size()); !s.ok()) return s;
  const std::vector<int64_t> strides = Strides(in);
  const int64_t total = Count(updates);
  const bool nd = io.node.op->kind == ir::OpKind::kScatterND;
  Dispatch s;
  s.shader = &ScatterShader();
  const uint32_t element_words = ElementWords(io.in_types[0]->dtype);
  s.spec = {index_kind, nd ? 1u : 0u, element_words};
  s.bindings = {io.in[1], io.in[2], io.out[0]};
  if (nd) {
    const int64_t k = io.in_types[1]->shape.back();
    if (k < 1 || k > static_cast<int64_t>(in.size())) {
      return absl::InvalidArgumentError(StrCat("scatterND with k = ", k));
    }
    int64_t slice = 1;
    for (size_t d = static_cast<size_t>(k); d < in.size(); ++d) slice *= in[d];
    s.push = {Word(total), Word(k), 0, Word(slice)};
    for (int i = 0; i < kMaxRank; ++i)
      s.push.push_back(Word(i < k ? in[i] : 1));
    for (int i = 0; i < kMaxRank; ++i)
      s.push.push_back(Word(i < k ? strides[i] : 0));
    s.push.push_back(0);
  } else {
    const int rank = static_cast<int>(in.size());
    const int64_t axis = io.attrs().GetInt("axis", 0);
    if (axis < 0 || axis >= rank || static_cast<int>(updates.size()) != rank) {
      return absl::InvalidArgumentError("scatterElements axis out of range");
    }
    s.push = {Word(total), Word(int64_t{rank}), Word(axis), 1};
    for (int i = 0; i < kMaxRank; ++i)
      s.push.push_back(Word(i < rank ? updates[i] : 1));
    for (int i = 0; i < kMaxRank; ++i)
      s.push.push_back(Word(i < rank ? strides[i] : 0));
    s.push.push_back(Word(in[axis]));
  }
  s.groups[0] = GridGroups(total, 256, io.max_groups);
  // First the input into the result (a flat copy of 32-bit words).
  const int64_t words = Count(in) * element_words;
  return std::vector<Dispatch>{FlatCopy(io, io.in[0], io.out[0], words), s};
}

}  // namespace webnnm::backends::vulkan
