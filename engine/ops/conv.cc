#include "engine/ops/conv.h"

#include "engine/base/checked_math.h"

namespace webnnm::ops {

absl::StatusOr<ImageAxes> InputLayoutAxes(const InferContext& c,
                                          const char* attr) {
  absl::StatusOr<std::string> layout = EnumAttr(c, attr, "nchw");
  if (!layout.ok()) return layout.status();
  if (*layout == "nhwc") return ImageAxes{3, 1, 2};
  return ImageAxes{1, 2, 3};
}

absl::StatusOr<FilterAxes> FilterLayoutAxes(const InferContext& c,
                                            const char* fallback) {
  absl::StatusOr<std::string> layout = EnumAttr(c, "filterLayout", fallback);
  if (!layout.ok()) return layout.status();
  const std::string& l = *layout;
  // Position of each letter in the layout string.
  return FilterAxes{
      static_cast<int>(l.find('o')), static_cast<int>(l.find('i')),
      static_cast<int>(l.find('h')), static_cast<int>(l.find('w'))};
}

absl::StatusOr<Window> ReadWindow(const InferContext& c) {
  Window w;
  absl::StatusOr<std::vector<int64_t>> padding =
      IntListAttr(c, "padding", {0, 0, 0, 0}, 4, 0);
  if (!padding.ok()) return padding.status();
  absl::StatusOr<std::vector<int64_t>> strides =
      IntListAttr(c, "strides", {1, 1}, 2, 1);
  if (!strides.ok()) return strides.status();
  absl::StatusOr<std::vector<int64_t>> dilations =
      IntListAttr(c, "dilations", {1, 1}, 2, 1);
  if (!dilations.ok()) return dilations.status();
  for (int i = 0; i < 4; ++i) w.padding[i] = (*padding)[i];
  for (int i = 0; i < 2; ++i) {
    w.strides[i] = (*strides)[i];
    w.dilations[i] = (*dilations)[i];
  }
  return w;
}

absl::StatusOr<int64_t> EffectiveSize(int64_t kernel, int64_t dilation,
                                      const char* attr) {
  std::optional<int64_t> span = CheckedMul(kernel - 1, dilation);
  if (span) span = CheckedAdd(*span, 1);
  if (!span) {
    return AttrError(attr, StrCat("the dilated window of ", kernel,
                                  " with dilation ", dilation, " overflows"));
  }
  return *span;
}

absl::StatusOr<int64_t> WindowOutputSize(int64_t input, int64_t kernel,
                                         int64_t pad_begin, int64_t pad_end,
                                         int64_t stride, int64_t dilation,
                                         bool ceil, const char* what) {
  absl::StatusOr<int64_t> effective =
      EffectiveSize(kernel, dilation, "dilations");
  if (!effective.ok()) return effective.status();
  std::optional<int64_t> padded = CheckedAdd(input, pad_begin);
  if (padded) padded = CheckedAdd(*padded, pad_end);
  if (!padded) return AttrError("padding", "the padded input size overflows");
  if (*effective > *padded) {
    return AttrError(
        "padding",
        StrCat("the ", what, " window of effective size ", *effective,
               " (kernel ", kernel, ", dilation ", dilation,
               ") does not fit the padded input of size ", *padded));
  }
  int64_t span = *padded - *effective;
  int64_t steps = ceil ? (span + stride - 1) / stride : span / stride;
  return steps + 1;
}

absl::StatusOr<int64_t> SolveKernelSize(int64_t input, int64_t output,
                                        int64_t pad_begin, int64_t pad_end,
                                        int64_t stride, int64_t dilation,
                                        const char* what) {
  std::optional<int64_t> padded = CheckedAdd(input, pad_begin);
  if (padded) padded = CheckedAdd(*padded, pad_end);
  std::optional<int64_t> covered = CheckedMul(stride, output - 1);
  if (!padded || !covered || output < 1) {
    return absl::InvalidArgumentError(StrCat("no ", what, " size fits"));
  }
  // floor((padded - effective) / stride) + 1 == output
  //   <=>  padded - effective in [stride*(output-1),
  //   stride*(output-1)+stride-1]
  int64_t effective_max = *padded - *covered;
  int64_t effective_min = effective_max - (stride - 1);
  if (effective_min < 1) effective_min = 1;
  // The smallest effective size in range that a whole kernel gives.
  int64_t e =
      effective_min + (dilation - (effective_min - 1) % dilation) % dilation;
  if (e <= effective_max) return (e - 1) / dilation + 1;
  return absl::InvalidArgumentError(
      StrCat("no ", what, " size turns an input of ", input, " (padding ",
             pad_begin, "+", pad_end, ", stride ", stride, ", dilation ",
             dilation, ") into an output of ", output));
}

}  // namespace webnnm::ops
