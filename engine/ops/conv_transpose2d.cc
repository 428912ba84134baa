// convTranspose2d: 2-D transposed convolution ("deconvolution").
// Operands: input (float32, float16; nchw or nhwc), filter (the input's
// type; iohw, hwoi or ohwi; its input channels equal the input's channels),
// bias (optional, [outputChannels]).
// Options: padding, strides, dilations, groups (as conv2d), outputPadding
// [height, width] (default 0; each smaller than its stride; ignored when
// outputSizes is given), outputSizes
// [height, width] (optional; at least the computed size and less than the
// computed size plus the stride), inputLayout, filterLayout.
// Result: output channels = filter output channels * groups; spatial size
// (in - 1) * stride + (k - 1) * d + 1 - padding + outputPadding, or
// outputSizes.
//
// A trainable filter is inferred from the input channels, the output
// channels and the height and width of the layer's declared shape.
#include "engine/base/checked_math.h"
#include "engine/ops/conv.h"
#include "engine/ops/conv_gradient.h"

namespace webnnm::ops {

namespace {

// y = convTranspose(x, w): dx is the convolution of dy with w (the iohw
// filter [I, O/groups, KH, KW] is the oihw filter from dy's channels back
// to x's); dw correlates dy with x over the batch; db sums dy.
absl::Status ConvTranspose2dGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(ConvGradient c, SetUpConvGradient(g, /*transposed=*/true));
  if (g.wants(0)) {
    const Window& w = c.window;
    ASSIGN_OR_RETURN(ValueId dx,
                     g.Op(OpKind::kConv2d, {c.dy, c.filter},
                          ConvAttrs(w, w.strides, w.dilations, c.groups)));
    std::vector<int64_t> ds = g.shape(dx);
    ASSIGN_OR_RETURN(dx, g.Slice(dx, {0, 0, 0, 0},
                                 {ds[0], ds[1], c.x_shape[2], c.x_shape[3]}));
    RETURN_IF_ERROR(SetInputGradient(g, c, dx));
  }
  if (g.wants(1)) RETURN_IF_ERROR(SetFilterGradient(g, c, c.dy, c.x));
  if (g.wants(2)) RETURN_IF_ERROR(SetBiasGradient(g, c));
  return absl::OkStatus();
}

absl::StatusOr<FilterAxes> TransposedFilterAxes(const InferContext& c) {
  // For convTranspose2d the filter's "o" is per-group output channels.
  return FilterLayoutAxes(c, "iohw");
}

// The spatial output size before outputSizes is applied.
absl::StatusOr<int64_t> TransposedSize(int64_t input, int64_t kernel,
                                       int64_t pad_begin, int64_t pad_end,
                                       int64_t stride, int64_t dilation,
                                       int64_t output_padding) {
  absl::StatusOr<int64_t> effective =
      EffectiveSize(kernel, dilation, "dilations");
  if (!effective.ok()) return effective.status();
  std::optional<int64_t> size = CheckedMul(input - 1, stride);
  if (size) size = CheckedAdd(*size, *effective);
  if (size) size = CheckedAdd(*size, output_padding);
  if (size) size = CheckedSub(*size, pad_begin);
  if (size) size = CheckedSub(*size, pad_end);
  if (!size) return AttrError("strides", "the transposed size overflows");
  if (*size < 1) {
    return AttrError("padding",
                     StrCat("convTranspose2d padding ", pad_begin, "+", pad_end,
                            " leaves no output (size ", *size, ")"));
  }
  return *size;
}

absl::StatusOr<Types> InferConvTranspose2d(const InferContext& c) {
  absl::Status status = CheckRankIs(c, 0, 4);
  if (status.ok()) status = CheckRankIs(c, 1, 4);
  if (!status.ok()) return status;
  absl::StatusOr<ImageAxes> in = InputLayoutAxes(c, "inputLayout");
  if (!in.ok()) return in.status();
  absl::StatusOr<FilterAxes> f = TransposedFilterAxes(c);
  if (!f.ok()) return f.status();
  absl::StatusOr<Window> w = ReadWindow(c);
  if (!w.ok()) return w.status();
  absl::StatusOr<std::vector<int64_t>> output_padding =
      IntListAttr(c, "outputPadding", {0, 0}, 2, 0);
  if (!output_padding.ok()) return output_padding.status();
  const TensorType& input = c.operand(0);
  const TensorType& filter = c.operand(1);
  int64_t groups = c.attrs.GetInt("groups", 1);
  if (groups < 1) {
    return AttrError("groups", "convTranspose2d groups must be positive");
  }
  for (int axis : {in->channels, in->height, in->width}) {
    absl::StatusOr<int64_t> d = ConcreteDim(c, 0, axis, "convTranspose2d");
    if (!d.ok()) return d.status();
  }
  int64_t channels = input.shape[in->channels];
  if (filter.shape[f->input] != channels || channels % groups != 0) {
    return OperandError(
        1, StrCat("convTranspose2d filter ", ir::ShapeToString(filter.shape),
                  " takes ", filter.shape[f->input],
                  " input channels but the input has ", channels, " (groups ",
                  groups, ")"));
  }
  absl::StatusOr<int64_t> out_channels = CheckedMulDims(
      filter.shape[f->output], groups, "the output channel count");
  if (!out_channels.ok()) return out_channels.status();
  TensorType out = SameShape(c, 0, input.dtype);
  out.shape[in->channels] = *out_channels;
  std::vector<int64_t> sizes = c.attrs.GetInts("outputSizes", {});
  if (!sizes.empty() && sizes.size() != 2) {
    return AttrError("outputSizes",
                     "convTranspose2d outputSizes must have two values");
  }
  for (int i = 0; i < 2; ++i) {
    if (sizes.empty() && (*output_padding)[i] >= w->strides[i]) {
      return AttrError(
          "outputPadding",
          StrCat("convTranspose2d outputPadding ", (*output_padding)[i],
                 " must be smaller than the stride ", w->strides[i]));
    }
    int axis = i == 0 ? in->height : in->width;
    absl::StatusOr<int64_t> size = TransposedSize(
        input.shape[axis], filter.shape[i == 0 ? f->height : f->width],
        w->padding[2 * i], w->padding[2 * i + 1], w->strides[i],
        w->dilations[i], sizes.empty() ? (*output_padding)[i] : 0);
    if (!size.ok()) return size.status();
    if (!sizes.empty()) {
      if (sizes[i] < *size || sizes[i] >= *size + w->strides[i]) {
        return AttrError(
            "outputSizes",
            StrCat("convTranspose2d outputSizes ", sizes[i], " must be in [",
                   *size, ", ", *size + w->strides[i], ")"));
      }
      *size = sizes[i];
    }
    out.shape[axis] = *size;
  }
  if (c.has(2)) {
    status = CheckShapeIs(c, 2, {*out_channels});
    if (!status.ok()) return status;
  }
  out.channel_axis = in->channels;
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveConvTranspose2d(const InferContext& c,
                                                const TensorType* expected,
                                                int slot) {
  if (!c.has(0) || c.operand(0).rank() != 4 || expected == nullptr ||
      expected->rank() != 4) {
    return absl::InvalidArgumentError(
        "convTranspose2d cannot infer its filter without the layer's output "
        "shape (channels, height and width)");
  }
  absl::StatusOr<ImageAxes> in = InputLayoutAxes(c, "inputLayout");
  if (!in.ok()) return in.status();
  absl::StatusOr<FilterAxes> f = TransposedFilterAxes(c);
  if (!f.ok()) return f.status();
  absl::StatusOr<Window> w = ReadWindow(c);
  if (!w.ok()) return w.status();
  std::vector<int64_t> output_padding =
      c.attrs.GetInts("outputPadding", {0, 0});
  const TensorType& input = c.operand(0);
  int64_t groups = c.attrs.GetInt("groups", 1);
  int64_t out_channels = expected->shape[in->channels];
  if (slot == 2) {
    TensorType bias;
    bias.shape = {out_channels};
    return bias;
  }
  if (groups < 1 || out_channels % groups != 0) {
    return absl::InvalidArgumentError(StrCat("convTranspose2d groups ", groups,
                                             " do not divide the ",
                                             out_channels, " output channels"));
  }
  std::vector<int64_t> shape(4);
  shape[f->input] = input.shape[in->channels];
  shape[f->output] = out_channels / groups;
  for (int i = 0; i < 2; ++i) {
    int axis = i == 0 ? in->height : in->width;
    // effective = out - (in - 1) * stride + padding - outputPadding
    std::optional<int64_t> covered =
        CheckedMul(input.shape[axis] - 1, w->strides[i]);
    int64_t pads = w->padding[2 * i] + w->padding[2 * i + 1];
    int64_t effective =
        covered ? expected->shape[axis] - *covered + pads -
                      (output_padding.size() == 2 ? output_padding[i] : 0)
                : -1;
    if (effective < 1 || (effective - 1) % w->dilations[i] != 0) {
      return absl::InvalidArgumentError(
          StrCat("no kernel size turns an input of ", input.shape[axis],
                 " into an output of ", expected->shape[axis],
                 " with convTranspose2d's strides, padding and dilations"));
    }
    shape[i == 0 ? f->height : f->width] =
        (effective - 1) / w->dilations[i] + 1;
  }
  for (int64_t d : shape) {
    if (ir::IsSymbolic(d) || d < 1) {
      return absl::InvalidArgumentError(
          "convTranspose2d filter cannot span the batch dimension");
    }
  }
  TensorType filter;
  filter.shape = std::move(shape);
  return filter;
}

}  // namespace

const ir::OpDef& ConvTranspose2dOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kConvTranspose2d,
      .name = "convTranspose2d",
      .category = ir::OpCategory::kConvolution,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "filter",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kWeight},
                   {.name = "bias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "padding", .kind = ir::AttrKind::kPadding},
                {.name = "strides", .kind = ir::AttrKind::kSpatial},
                {.name = "dilations", .kind = ir::AttrKind::kSpatial},
                {.name = "outputPadding", .kind = ir::AttrKind::kSpatial},
                {.name = "outputSizes", .kind = ir::AttrKind::kSpatial},
                {.name = "groups", .kind = ir::AttrKind::kInt},
                {.name = "inputLayout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"nchw", "nhwc"}},
                {.name = "filterLayout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"iohw", "hwoi", "ohwi"}}},
      .infer = InferConvTranspose2d,
      .solve = SolveConvTranspose2d,
      .aliases = {"convTranspose2D"},
      .gradient = ConvTranspose2dGradient};
  return def;
}

}  // namespace webnnm::ops
