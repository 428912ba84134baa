// conv2d: 2-D convolution of a 4-D input with a 4-D filter.
// Operands: input (float32, float16; nchw or nhwc), filter (the input's
// type; oihw, hwio, ohwi or ihwo), bias (optional, [outputChannels]).
// Options: padding [top, bottom, left, right] (default 0), strides and
// dilations [height, width] (default 1), groups (default 1; divides both
// channel counts), inputLayout, filterLayout.
// Result: the input's type and layout, spatial size
// floor((in + padding - ((k - 1) * d + 1)) / stride) + 1.
//
// A trainable filter is inferred from the input channels, the output
// channels of the layer's declared shape, and the smallest kernel that gives
// its height and width with the layer's padding, strides and dilations. The
// bias gets one value per output channel.
#include "engine/ops/conv.h"
#include "engine/ops/conv_gradient.h"

namespace webnnm::ops {

namespace {

// y = conv(x, w): dx is the transposed convolution of dy with w; dw
// correlates x with dy over the batch (a convolution whose window is dy,
// dilated by the strides and strided by the dilations); db sums dy.
absl::Status Conv2dGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(ConvGradient c, SetUpConvGradient(g, /*transposed=*/false));
  if (g.wants(0)) {
    const Window& w = c.window;
    ir::Attrs attrs = ConvAttrs(w, w.strides, w.dilations, c.groups);
    attrs.Set("outputSizes", std::vector<int64_t>{c.x_shape[2], c.x_shape[3]});
    ASSIGN_OR_RETURN(ValueId dx,
                     g.Op(OpKind::kConvTranspose2d, {c.dy, c.filter}, attrs));
    RETURN_IF_ERROR(SetInputGradient(g, c, dx));
  }
  if (g.wants(1)) RETURN_IF_ERROR(SetFilterGradient(g, c, c.x, c.dy));
  if (g.wants(2)) RETURN_IF_ERROR(SetBiasGradient(g, c));
  return absl::OkStatus();
}

absl::StatusOr<Types> InferConv2d(const InferContext& c) {
  absl::Status status = CheckRankIs(c, 0, 4);
  if (status.ok()) status = CheckRankIs(c, 1, 4);
  if (!status.ok()) return status;
  absl::StatusOr<ImageAxes> in = InputLayoutAxes(c, "inputLayout");
  if (!in.ok()) return in.status();
  absl::StatusOr<FilterAxes> f = FilterLayoutAxes(c, "oihw");
  if (!f.ok()) return f.status();
  absl::StatusOr<Window> w = ReadWindow(c);
  if (!w.ok()) return w.status();
  const TensorType& input = c.operand(0);
  const TensorType& filter = c.operand(1);
  int64_t groups = c.attrs.GetInt("groups", 1);
  if (groups < 1) return AttrError("groups", "conv2d groups must be positive");
  for (int axis : {in->channels, in->height, in->width}) {
    absl::StatusOr<int64_t> d = ConcreteDim(c, 0, axis, "conv2d");
    if (!d.ok()) return d.status();
  }
  int64_t channels = input.shape[in->channels];
  int64_t out_channels = filter.shape[f->output];
  if (channels % groups != 0 || channels / groups != filter.shape[f->input]) {
    return OperandError(
        1, StrCat("conv2d filter ", ir::ShapeToString(filter.shape), " takes ",
                  filter.shape[f->input],
                  " input channels per group but the input "
                  "has ",
                  channels, " channels in ", groups, " group(s)"));
  }
  if (out_channels % groups != 0) {
    return AttrError("groups", StrCat("conv2d output channels ", out_channels,
                                      " are not divisible by groups ", groups));
  }
  TensorType out = SameShape(c, 0, input.dtype);
  out.shape[in->channels] = out_channels;
  for (int i = 0; i < 2; ++i) {
    int axis = i == 0 ? in->height : in->width;
    int64_t kernel = filter.shape[i == 0 ? f->height : f->width];
    absl::StatusOr<int64_t> size = WindowOutputSize(
        input.shape[axis], kernel, w->padding[2 * i], w->padding[2 * i + 1],
        w->strides[i], w->dilations[i], false, "conv2d");
    if (!size.ok()) return OperandError(1, size.status());
    out.shape[axis] = *size;
  }
  if (c.has(2)) {
    status = CheckShapeIs(c, 2, {out_channels});
    if (!status.ok()) return status;
  }
  out.channel_axis = in->channels;
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveConv2d(const InferContext& c,
                                       const TensorType* expected, int slot) {
  if (slot == 2 && c.has(1)) {
    absl::StatusOr<FilterAxes> f = FilterLayoutAxes(c, "oihw");
    if (!f.ok()) return f.status();
    TensorType bias;
    bias.shape = {c.operand(1).shape[f->output]};
    return bias;
  }
  if (!c.has(0) || c.operand(0).rank() != 4) {
    return absl::InvalidArgumentError("conv2d needs a 4-D input");
  }
  if (expected == nullptr || expected->rank() != 4) {
    return absl::InvalidArgumentError(
        "conv2d cannot infer its filter without the layer's output shape "
        "(channels, height and width)");
  }
  absl::StatusOr<ImageAxes> in = InputLayoutAxes(c, "inputLayout");
  if (!in.ok()) return in.status();
  absl::StatusOr<FilterAxes> f = FilterLayoutAxes(c, "oihw");
  if (!f.ok()) return f.status();
  absl::StatusOr<Window> w = ReadWindow(c);
  if (!w.ok()) return w.status();
  const TensorType& input = c.operand(0);
  int64_t groups = c.attrs.GetInt("groups", 1);
  int64_t out_channels = expected->shape[in->channels];
  if (slot == 2) {
    TensorType bias;
    bias.shape = {out_channels};
    return bias;
  }
  if (groups < 1 || input.shape[in->channels] % groups != 0) {
    return absl::InvalidArgumentError(
        StrCat("conv2d groups ", groups, " do not divide the ",
               input.shape[in->channels], " input channels"));
  }
  std::vector<int64_t> shape(4);
  shape[f->output] = out_channels;
  shape[f->input] = input.shape[in->channels] / groups;
  for (int i = 0; i < 2; ++i) {
    int axis = i == 0 ? in->height : in->width;
    absl::StatusOr<int64_t> kernel = SolveKernelSize(
        input.shape[axis], expected->shape[axis], w->padding[2 * i],
        w->padding[2 * i + 1], w->strides[i], w->dilations[i],
        i == 0 ? "kernel height" : "kernel width");
    if (!kernel.ok()) return kernel.status();
    shape[i == 0 ? f->height : f->width] = *kernel;
  }
  for (int64_t d : shape) {
    if (ir::IsSymbolic(d) || d < 1) {
      return absl::InvalidArgumentError(
          "conv2d filter cannot span the batch or sequence dimension");
    }
  }
  TensorType filter;
  filter.shape = std::move(shape);
  return filter;
}

}  // namespace

const ir::OpDef& Conv2dOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kConv2d,
      .name = "conv2d",
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
                {.name = "groups", .kind = ir::AttrKind::kInt},
                {.name = "inputLayout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"nchw", "nhwc"}},
                {.name = "filterLayout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"oihw", "hwio", "ohwi", "ihwo"}}},
      .infer = InferConv2d,
      .solve = SolveConv2d,
      .gradient = Conv2dGradient};
  return def;
}

}  // namespace webnnm::ops
