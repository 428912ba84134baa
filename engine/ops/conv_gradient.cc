#include "engine/ops/conv_gradient.h"

namespace webnnm::ops {

absl::StatusOr<ConvGradient> SetUpConvGradient(GradientBuilder& g,
                                               bool transposed) {
  ConvGradient c;
  ASSIGN_OR_RETURN(ImageAxes in, InputLayoutAxes(g.context(), "inputLayout"));
  ASSIGN_OR_RETURN(FilterAxes f,
                   FilterLayoutAxes(g.context(), transposed ? "iohw" : "oihw"));
  c.input_perm = {0, in.channels, in.height, in.width};
  c.filter_perm = transposed
                      ? std::vector<int>{f.input, f.output, f.height, f.width}
                      : std::vector<int>{f.output, f.input, f.height, f.width};
  ASSIGN_OR_RETURN(c.window, ReadWindow(g.context()));
  c.groups = g.attrs().GetInt("groups", 1);
  ASSIGN_OR_RETURN(c.x, g.Transpose(g.x(0), c.input_perm));
  ASSIGN_OR_RETURN(c.filter, g.Transpose(g.x(1), c.filter_perm));
  ASSIGN_OR_RETURN(c.dy, g.Transpose(g.dy(), c.input_perm));
  c.x_shape = g.shape(c.x);
  c.filter_shape = g.shape(c.filter);
  return c;
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

absl::Status SetInputGradient(GradientBuilder& g, const ConvGradient& c,
                              ValueId dx) {
  return g.Set(0, g.Transpose(dx, ir::InversePermutation(c.input_perm)));
}

absl::Status SetFilterGradient(GradientBuilder& g, const ConvGradient& c,
                               ValueId spread, ValueId window) {
  // [N, C, H, W] -> [C/groups, groups N, H, W] (one group: one transpose,
  // which the CPU backend can fold into the convolution that reads it).
  std::vector<int64_t> s = g.shape(spread);
  ValueId inputs;
  if (c.groups == 1) {
    ASSIGN_OR_RETURN(inputs, g.Transpose(spread, {1, 0, 2, 3}));
  } else {
    ASSIGN_OR_RETURN(
        ValueId split,
        g.Reshape(spread, {s[0], c.groups, s[1] / c.groups, s[2], s[3]}));
    ASSIGN_OR_RETURN(ValueId moved, g.Transpose(split, {2, 1, 0, 3, 4}));
    ASSIGN_OR_RETURN(inputs, g.Reshape(moved, {s[1] / c.groups, c.groups * s[0],
                                               s[2], s[3]}));
  }
  ASSIGN_OR_RETURN(ValueId taps, g.Transpose(window, {1, 0, 2, 3}));
  const Window& w = c.window;
  ASSIGN_OR_RETURN(ValueId correlation,
                   g.Op(OpKind::kConv2d, {inputs, taps},
                        ConvAttrs(w, w.dilations, w.strides, c.groups)));
  // [a, b, >= KH, >= KW] -> [b, a, KH, KW], then the filter's layout.
  std::vector<int64_t> cs = g.shape(correlation);
  ASSIGN_OR_RETURN(ValueId cropped, g.Slice(correlation, {0, 0, 0, 0},
                                            {cs[0], cs[1], c.filter_shape[2],
                                             c.filter_shape[3]}));
  ASSIGN_OR_RETURN(ValueId dw, g.Transpose(cropped, {1, 0, 2, 3}));
  return g.Set(1, g.Transpose(dw, ir::InversePermutation(c.filter_perm)));
}

absl::Status SetBiasGradient(GradientBuilder& g, const ConvGradient& c) {
  return g.Set(2, g.ReduceSum(c.dy, {0, 2, 3}, false));
}

}  // namespace webnnm::ops
