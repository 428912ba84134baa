// tile, pad and triangular (remap.comp: each result coordinate from an
// input coordinate), cumulativeSum (scan.comp) and gatherElements
// (gather_elements.comp).
#include <algorithm>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

// The bits of `value` as an element of `dtype` (a 32- or 64-bit type).
uint64_t ValueBits(double value, ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kInt32:
      return static_cast<uint32_t>(static_cast<int32_t>(value));
    case ir::DType::kUint32:
      return static_cast<uint32_t>(value < 0 ? 0 : value);
    case ir::DType::kInt64:
      return static_cast<uint64_t>(static_cast<int64_t>(value));
    case ir::DType::kUint64:
      return static_cast<uint64_t>(value < 0 ? 0 : value);
    default:
      return Word(static_cast<float>(value));
  }
}

}  // namespace

absl::StatusOr<std::vector<Dispatch>> PlanRemap(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const int rank = static_cast<int>(out.size());
  if (absl::Status s = CheckRank(out.size()); !s.ok()) return s;
  if (static_cast<int>(in.size()) != rank) {
    return absl::InvalidArgumentError("the result's rank differs");
  }
  const ir::Attrs& a = io.attrs();
  uint32_t mode = 0, pad = 0, upper = 0;
  uint64_t value = 0;
  int64_t diagonal = 0;
  std::vector<int64_t> begin(rank, 0);
  switch (io.node.op->kind) {
    case K::kTile:
      break;
    case K::kPad: {
      mode = 1;
      begin = a.GetInts("beginningPadding", begin);
      const std::string kind = a.GetString("mode", "constant");
      pad = kind == "constant" ? 0 : kind == "edge" ? 1 : 2;
      if (kind != "constant" && kind != "edge" && kind != "reflection") {
        return absl::InvalidArgumentError(StrCat("unknown pad mode ", kind));
      }
      value = ValueBits(a.GetFloat("value", 0.0), io.in_types[0]->dtype);
      if (static_cast<int>(begin.size()) != rank) {
        return absl::InvalidArgumentError("pad options do not match the rank");
      }
      break;
    }
    default:  // triangular
      mode = 2;
      upper = a.GetBool("upper", true) ? 1 : 0;
      diagonal = a.GetInt("diagonal", 0);
      break;
  }
  const int64_t n = Count(out);
  Dispatch d;
  d.shader = &RemapShader();
  d.spec = {mode, pad, ElementWords(io.in_types[0]->dtype)};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(n), Word(int64_t{rank})};
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? out[k] : 1));
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? in[k] : 1));
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? begin[k] : 0));
  d.push.push_back(static_cast<uint32_t>(value));
  d.push.push_back(upper);
  d.push.push_back(Word(std::clamp<int64_t>(diagonal, -(1 << 30), 1 << 30)));
  d.push.push_back(static_cast<uint32_t>(value >> 32));
  d.groups[0] = GridGroups(n, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanScan(const OpIO& io) {
  ASSIGN_OR_RETURN(AxisSplit s, SplitAt(io.in_types[0]->shape,
                                        io.attrs().GetInt("axis", -1)));
  Dispatch d;
  d.shader = &ScanShader();
  const ir::DType dtype = io.in_types[0]->dtype;
  const uint32_t type = dtype == ir::DType::kFloat32         ? 0
                        : ir::RuntimeElementSize(dtype) == 8 ? 2
                                                             : 1;
  d.spec = {io.attrs().GetBool("exclusive", false) ? 1u : 0u,
            io.attrs().GetBool("reversed", false) ? 1u : 0u, type};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(s.outer * s.inner), Word(s.length), Word(s.inner)};
  d.groups[0] = GridGroups(s.outer * s.inner, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanGatherElements(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const int rank = static_cast<int>(out.size());
  if (absl::Status s = CheckRank(out.size()); !s.ok()) return s;
  const int64_t axis = io.attrs().GetInt("axis", 0);
  if (axis < 0 || axis >= rank || static_cast<int>(in.size()) != rank) {
    return absl::InvalidArgumentError("gatherElements axis out of range");
  }
  ASSIGN_OR_RETURN(uint32_t index_kind, IndexKind(io.in_types[1]->dtype));
  const std::vector<int64_t> strides = Strides(in);
  const int64_t n = Count(out);
  Dispatch d;
  d.shader = &GatherElementsShader();
  d.spec = {index_kind, ElementWords(io.in_types[0]->dtype)};
  d.bindings = {io.in[0], io.in[1], io.out[0]};
  d.push = {Word(n), Word(int64_t{rank}), Word(axis)};
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? out[k] : 1));
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? strides[k] : 0));
  d.push.push_back(Word(in[axis]));
  d.groups[0] = GridGroups(n, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

}  // namespace webnnm::backends::vulkan
