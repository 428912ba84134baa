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
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

namespace {

// Permutations that bring the input to nchw and the filter to `canonical`
// (oihw for conv2d, iohw for convTranspose2d).
struct Canonical {
  std::vector<int> input, filter;
};

absl::StatusOr<Canonical> CanonicalPerms(const GradientBuilder& g,
                                         const char* default_filter,
                                         bool transposed) {
  ASSIGN_OR_RETURN(ImageAxes in, InputLayoutAxes(g.context(), "inputLayout"));
  ASSIGN_OR_RETURN(FilterAxes f, FilterLayoutAxes(g.context(), default_filter));
  Canonical perms;
  perms.input = {0, in.channels, in.height, in.width};
  if (transposed) {
    perms.filter = {f.input, f.output, f.height, f.width};
  } else {
    perms.filter = {f.output, f.input, f.height, f.width};
  }
  return perms;
}

ir::Attrs ConvAttrs(const Window& w, std::array<int64_t, 2> strides,
                    std::array<int64_t, 2> dilations, int64_t groups) {
  ir::Attrs attrs;
  attrs.Set("padding",
            std::vector<int64_t>(w.padding.begin(), w.padding.end()));
  attrs.Set("strides", std::vector<int64_t>(strides.begin(), strides.end()));
  attrs.Set("dilations",
            std::vector<int64_t>(dilations.begin(), dilations.end()));
  attrs.Set("groups", groups);
  return attrs;
}

// [N, C, H, W] -> [C/groups, groups N, H, W]: the batch becomes the
// channels of each group, so that a grouped convolution correlates two
// activations over the batch (the weight gradient).
absl::StatusOr<ValueId> BatchAsChannels(GradientBuilder& g, ValueId v,
                                        int64_t groups) {
  std::vector<int64_t> s = g.shape(v);
  ASSIGN_OR_RETURN(ValueId split,
                   g.Reshape(v, {s[0], groups, s[1] / groups, s[2], s[3]}));
  ASSIGN_OR_RETURN(ValueId moved, g.Transpose(split, {2, 1, 0, 3, 4}));
  return g.Reshape(moved, {s[1] / groups, groups * s[0], s[2], s[3]});
}

// y = conv(x, w): dx is the transposed convolution of dy with w; dw
// correlates x with dy over the batch (a convolution whose window is dy,
// dilated by the strides and strided by the dilations); db sums dy.
absl::Status Conv2dGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(Canonical perms, CanonicalPerms(g, "oihw", false));
  ASSIGN_OR_RETURN(Window w, ReadWindow(g.context()));
  int64_t groups = g.attrs().GetInt("groups", 1);
  ASSIGN_OR_RETURN(ValueId x, g.Transpose(g.x(0), perms.input));
  ASSIGN_OR_RETURN(ValueId filter, g.Transpose(g.x(1), perms.filter));
  ASSIGN_OR_RETURN(ValueId dy, g.Transpose(g.dy(), perms.input));
  const std::vector<int64_t> xs = g.shape(x), fs = g.shape(filter);
  if (g.wants(0)) {
    ir::Attrs attrs = ConvAttrs(w, w.strides, w.dilations, groups);
    attrs.Set("outputSizes", std::vector<int64_t>{xs[2], xs[3]});
    ASSIGN_OR_RETURN(ValueId dx,
                     g.Op(OpKind::kConvTranspose2d, {dy, filter}, attrs));
    RETURN_IF_ERROR(
        g.Set(0, g.Transpose(dx, ir::InversePermutation(perms.input))));
  }
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId inputs, BatchAsChannels(g, x, groups));
    ASSIGN_OR_RETURN(ValueId window, g.Transpose(dy, {1, 0, 2, 3}));
    ASSIGN_OR_RETURN(ValueId correlation,
                     g.Op(OpKind::kConv2d, {inputs, window},
                          ConvAttrs(w, w.dilations, w.strides, groups)));
    // [C/groups, O, >= KH, >= KW] -> [O, C/groups, KH, KW]
    std::vector<int64_t> cs = g.shape(correlation);
    ASSIGN_OR_RETURN(ValueId cropped, g.Slice(correlation, {0, 0, 0, 0},
                                              {cs[0], cs[1], fs[2], fs[3]}));
    ASSIGN_OR_RETURN(ValueId dw, g.Transpose(cropped, {1, 0, 2, 3}));
    RETURN_IF_ERROR(
        g.Set(1, g.Transpose(dw, ir::InversePermutation(perms.filter))));
  }
  if (g.wants(2)) RETURN_IF_ERROR(g.Set(2, g.ReduceSum(dy, {0, 2, 3}, false)));
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
