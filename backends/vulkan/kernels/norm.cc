// The normalizations, float32: layerNormalization and
// instanceNormalization (norm.comp: statistics reduced per group in shared
// memory) and batchNormalization with given statistics (batchnorm.comp).
#include <algorithm>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

bool Has(const OpIO& io, size_t k) {
  return io.in_types.size() > k && io.in_types[k] != nullptr;
}

// Dimensions `dims` of a tensor of `shape` and `strides`, in that order.
Walk DimsWalk(const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides,
              const std::vector<int>& dims) {
  Walk walk;
  walk.strides.resize(1);
  for (int d : dims) {
    walk.shape.push_back(shape[d]);
    walk.strides[0].push_back(strides[d]);
  }
  return walk;
}

}  // namespace

absl::StatusOr<std::vector<Dispatch>> PlanNorm(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  const std::vector<int64_t> strides = Strides(in);
  const ir::Attrs& a = io.attrs();
  if (io.node.op->kind == K::kBatchNormalization) {
    const int64_t axis = a.GetInt("axis", 1);
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError("batchNormalization axis out of range");
    }
    const bool scale = Has(io, 3), bias = Has(io, 4);
    Dispatch d;
    d.shader = &BatchNormShader();
    d.spec = {scale ? 1u : 0u, bias ? 1u : 0u};
    d.bindings = {io.in[0],
                  io.in[1],
                  io.in[2],
                  scale ? io.in[3] : io.in[0],
                  bias ? io.in[4] : io.in[0],
                  io.out[0]};
    const int64_t n = Count(in);
    d.push = {Word(n), Word(in[axis]), Word(strides[axis]),
              Word(static_cast<float>(a.GetFloat("epsilon", 1e-5)))};
    d.groups[0] = GridGroups(n, 256, io.max_groups);
    return std::vector<Dispatch>{d};
  }
  std::vector<int> reduced, kept;
  int channel_dim = 0;
  bool channel = false;
  if (io.node.op->kind == K::kInstanceNormalization) {
    if (rank != 4) return absl::InvalidArgumentError("a 4-D input expected");
    const bool nhwc = a.GetString("layout", "nchw") == "nhwc";
    kept = nhwc ? std::vector<int>{0, 3} : std::vector<int>{0, 1};
    reduced = nhwc ? std::vector<int>{1, 2} : std::vector<int>{2, 3};
    channel = true;
    channel_dim = 1;
  } else {
    std::vector<int64_t> all;
    for (int d = 1; d < rank; ++d) all.push_back(d);
    std::vector<bool> is_reduced(rank, false);
    for (int64_t axis : a.GetInts("axes", all)) {
      if (axis < 0 || axis >= rank || is_reduced[axis]) {
        return absl::InvalidArgumentError(StrCat("bad axis ", axis));
      }
      is_reduced[axis] = true;
      reduced.push_back(static_cast<int>(axis));  // scale's order
    }
    for (int d = 0; d < rank; ++d) {
      if (!is_reduced[d]) kept.push_back(d);
    }
  }
  // Neighbouring dimensions merged (the kept ones not with CHANNEL, whose
  // channel stays a dimension of its own): the kept ones are in the
  // tensor's order, so at most half of the rank remains (4 for rank 8);
  // the reduced ones, in scale's order, may not merge at all, and
  // norm.comp takes all of them. The error is a guard past rank 8.
  Walk kept_walk = DimsWalk(in, strides, kept);
  if (!channel) kept_walk = FoldDims(kept_walk);
  const Walk red_walk = FoldDims(DimsWalk(in, strides, reduced));
  if (static_cast<int>(kept_walk.shape.size()) > kNormKeptRank ||
      static_cast<int>(red_walk.shape.size()) > kNormReducedRank) {
    return absl::UnimplementedError(
        StrCat("rank ", rank, " normalization on the vulkan backend"));
  }
  int64_t groups = 1, count = 1;
  for (int d : kept) groups *= in[d];
  for (int d : reduced) count *= in[d];
  const bool scale = Has(io, 1), bias = Has(io, 2);
  // Few elements per group: one invocation per group; otherwise a
  // workgroup.
  const bool serial = count <= 64;
  Dispatch d;
  d.shader = &NormShader(io.subgroups && !serial);
  d.spec = {scale ? 1u : 0u, bias ? 1u : 0u, channel ? 1u : 0u,
            serial ? 1u : 0u};
  d.bindings = {io.in[0], scale ? io.in[1] : io.in[0],
                bias ? io.in[2] : io.in[0], io.out[0]};
  d.push = {Word(groups), Word(count),
            Word(static_cast<int64_t>(kept_walk.shape.size())),
            Word(static_cast<int64_t>(red_walk.shape.size()))};
  auto pad = [&](const std::vector<int64_t>& v, int size, int64_t fill) {
    for (int k = 0; k < size; ++k) {
      d.push.push_back(Word(k < static_cast<int>(v.size()) ? v[k] : fill));
    }
  };
  pad(kept_walk.shape, kNormKeptRank, 1);
  pad(kept_walk.strides[0], kNormKeptRank, 0);
  pad(red_walk.shape, kNormReducedRank, 1);
  pad(red_walk.strides[0], kNormReducedRank, 0);
  d.push.push_back(Word(int64_t{channel_dim}));
  d.push.push_back(Word(static_cast<float>(a.GetFloat("epsilon", 1e-5))));
  d.groups[0] = serial ? GridGroups(groups, 256, io.max_groups)
                       : static_cast<uint32_t>(std::min<int64_t>(
                             groups, static_cast<int64_t>(io.max_groups)));
  return std::vector<Dispatch>{d};
}

}  // namespace webnnm::backends::vulkan
