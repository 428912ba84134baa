// resample2d (resample.comp): nearest-neighbour or linear resizing of two
// axes of a 4-D float32, int32 or uint32 tensor (int8/uint8 widened), one
// invocation per output; the output shape is the rule's (sizes, or floor(scale
// · input)).
#include <limits>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {

absl::StatusOr<std::vector<Dispatch>> PlanResample(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  if (in.size() != 4 || out.size() != 4) {
    return absl::InvalidArgumentError("resample2d needs 4-D tensors");
  }
  const std::vector<int64_t> axes = io.attrs().GetInts("axes", {2, 3});
  if (axes.size() != 2 || axes[0] == axes[1] || axes[0] < 0 || axes[0] > 3 ||
      axes[1] < 0 || axes[1] > 3) {
    return absl::InvalidArgumentError("malformed resample2d axes");
  }
  // The shader's coordinates are fractions ((2o + 1)·in − out) / (2·out)
  // in 32-bit integers.
  for (int64_t axis : axes) {
    if ((2 * out[axis] + 1) * in[axis] >= std::numeric_limits<int32_t>::max()) {
      return absl::UnimplementedError(
          StrCat("resample2d from ", in[axis], " to ", out[axis],
                 " along one axis (the vulkan backend takes sizes whose "
                 "product stays below 2^30)"));
    }
  }
  const bool linear =
      io.attrs().GetString("mode", "nearest-neighbor") == "linear";
  const int64_t n = Count(out);
  Dispatch d;
  d.shader = &ResampleShader();
  const ir::DType dtype = io.in_types[0]->dtype;
  d.spec = {linear ? 1u : 0u, dtype == ir::DType::kInt32    ? 1u
                              : dtype == ir::DType::kUint32 ? 2u
                                                            : 0u};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(n), Word(axes[0]), Word(axes[1])};
  for (int64_t v : in) d.push.push_back(Word(v));
  for (int64_t v : out) d.push.push_back(Word(v));
  d.groups[0] = GridGroups(n, 256, io.max_groups);
  return std::vector<Dispatch>{std::move(d)};
}

}  // namespace webnnm::backends::vulkan
