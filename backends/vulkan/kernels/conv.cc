// conv2d and convTranspose2d (conv_tiled.comp: an implicit matrix product
// in 16×16 tiles through shared memory; conv.comp for thin groups: one
// invocation per result element) and the 2-D poolings (pool.comp).
#include <algorithm>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

constexpr int64_t kConvTile = 16;  // conv_tiled.comp's TILE

struct Image {
  int64_t n = 0, c = 0, h = 0, w = 0;
};

Image ReadImage(const std::vector<int64_t>& s, bool nhwc) {
  return nhwc ? Image{s[0], s[3], s[1], s[2]} : Image{s[0], s[1], s[2], s[3]};
}

}  // namespace

absl::StatusOr<std::vector<Dispatch>> PlanConv(const OpIO& io) {
  const bool transposed = io.node.op->kind == K::kConvTranspose2d;
  const ir::Attrs& a = io.attrs();
  const bool nhwc = a.GetString("inputLayout", "nchw") == "nhwc";
  const Image in = ReadImage(io.in_types[0]->shape, nhwc);
  const Image out = ReadImage(io.out_types[0]->shape, nhwc);
  const std::string layout =
      a.GetString("filterLayout", transposed ? "iohw" : "oihw");
  const std::vector<int64_t>& filter = io.in_types[1]->shape;
  if (layout.size() != 4 || filter.size() != 4) {
    return absl::InvalidArgumentError("bad filter layout");
  }
  const std::vector<int64_t> fs = Strides(filter);
  const int64_t groups = a.GetInt("groups", 1);
  const std::vector<int64_t> padding = a.GetInts("padding", {0, 0, 0, 0});
  const std::vector<int64_t> strides = a.GetInts("strides", {1, 1});
  const std::vector<int64_t> dilations = a.GetInts("dilations", {1, 1});
  if (groups < 1 || padding.size() != 4 || strides.size() != 2 ||
      dilations.size() != 2) {
    return absl::InvalidArgumentError("bad convolution options");
  }
  const bool bias = io.in_types.size() > 2 && io.in_types[2] != nullptr;
  // At least a tile of output channels per group: the implicit matrix
  // product through shared memory; otherwise (depthwise and other thin
  // groups) one invocation per result.
  const int64_t per_group = out.c / groups;
  const int64_t pixels = out.h * out.w;
  const bool tiled = per_group >= kConvTile &&
                     (pixels + kConvTile - 1) / kConvTile <= io.max_groups &&
                     (per_group + kConvTile - 1) / kConvTile <= io.max_groups;
  Dispatch d;
  d.shader = tiled ? &ConvTiledShader() : &ConvShader();
  d.spec = {transposed ? 1u : 0u, bias ? 1u : 0u};
  d.bindings = {io.in[0], io.in[1], bias ? io.in[2] : io.out[0], io.out[0]};
  d.push = {Word(in.n),
            Word(in.c),
            Word(in.h),
            Word(in.w),
            Word(out.c),
            Word(out.h),
            Word(out.w),
            Word(filter[layout.find('h')]),
            Word(filter[layout.find('w')]),
            Word(groups),
            Word(strides[0]),
            Word(strides[1]),
            Word(dilations[0]),
            Word(dilations[1]),
            Word(padding[0]),
            Word(padding[2]),
            Word(fs[layout.find('o')]),
            Word(fs[layout.find('i')]),
            Word(fs[layout.find('h')]),
            Word(fs[layout.find('w')]),
            Word(int64_t{nhwc ? 1 : 0})};
  if (tiled) {
    d.groups[0] = static_cast<uint32_t>((pixels + kConvTile - 1) / kConvTile);
    d.groups[1] =
        static_cast<uint32_t>((per_group + kConvTile - 1) / kConvTile);
    d.groups[2] =
        static_cast<uint32_t>(std::min<int64_t>(in.n * groups, io.max_groups));
  } else {
    d.groups[0] = GridGroups(Count(io.out_types[0]->shape), 256, io.max_groups);
  }
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanPool(const OpIO& io) {
  const ir::Attrs& a = io.attrs();
  const bool nhwc = a.GetString("layout", "nchw") == "nhwc";
  const Image in = ReadImage(io.in_types[0]->shape, nhwc);
  const Image out = ReadImage(io.out_types[0]->shape, nhwc);
  const std::vector<int64_t> window =
      a.GetInts("windowDimensions", {in.h, in.w});
  const std::vector<int64_t> padding = a.GetInts("padding", {0, 0, 0, 0});
  const std::vector<int64_t> strides = a.GetInts("strides", {1, 1});
  const std::vector<int64_t> dilations = a.GetInts("dilations", {1, 1});
  if (window.size() != 2 || padding.size() != 4 || strides.size() != 2 ||
      dilations.size() != 2) {
    return absl::InvalidArgumentError("bad pooling options");
  }
  const K op = io.node.op->kind;
  Dispatch d;
  d.shader = &PoolShader();
  // Integer max pooling (int8/uint8 widened): an empty window gives the
  // lowest value of the operation's own type, as on the CPU.
  const ir::DType dtype = io.in_types[0]->dtype;
  const uint32_t type = dtype == ir::DType::kInt32    ? 1
                        : dtype == ir::DType::kUint32 ? 2
                                                      : 0;
  const uint32_t lowest = io.narrow_type == ir::DType::kInt8    ? 0xFFFFFF80u
                          : io.narrow_type == ir::DType::kInt32 ? 0x80000000u
                                                                : 0u;
  d.spec = {op == K::kAveragePool2d ? 0u
            : op == K::kMaxPool2d   ? 1u
                                    : 2u,
            type, lowest};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(in.n),       Word(in.c),         Word(in.h),
            Word(in.w),       Word(out.h),        Word(out.w),
            Word(window[0]),  Word(window[1]),    Word(strides[0]),
            Word(strides[1]), Word(dilations[0]), Word(dilations[1]),
            Word(padding[0]), Word(padding[2]),   Word(int64_t{nhwc ? 1 : 0})};
  d.groups[0] = GridGroups(Count(io.out_types[0]->shape), 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanMaxPoolGradient(const OpIO& io) {
  const std::vector<int64_t>& x = io.in_types[0]->shape;
  const std::vector<int64_t>& dy = io.in_types[1]->shape;
  const std::vector<int64_t> window =
      io.attrs().GetInts("windowDimensions", {});
  if (x.size() != 4 || dy.size() != 4 || window.size() != 2) {
    return absl::InvalidArgumentError("malformed maxPool2dGradient");
  }
  Dispatch d;
  d.shader = &PoolGradientShader();
  d.bindings = {io.in[0], io.in[1], io.out[0]};
  d.push = {Word(x[0] * x[1]), Word(x[2]),      Word(x[3]),     Word(dy[2]),
            Word(dy[3]),       Word(window[0]), Word(window[1])};
  d.groups[0] = GridGroups(Count(x), 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

}  // namespace webnnm::backends::vulkan
