// Geometry shared by conv2d, convTranspose2d and the 2-D pooling operations:
// tensor layouts, window sizes and output sizes, all in checked arithmetic.
//
// Security (WebNN issues 928 and 949): strides and dilations must be
// positive, every size is computed without overflow, and the effective
// window (k - 1) * d + 1 must fit the padded input.
#ifndef WEBNNM_ENGINE_OPS_CONV_H_
#define WEBNNM_ENGINE_OPS_CONV_H_

#include <array>

#include "engine/ops/rules.h"

namespace webnnm::ops {

// Axes of a 4-D input or output tensor.
struct ImageAxes {
  int channels, height, width;
};
// nchw or nhwc (the attribute `attr`, default nchw).
absl::StatusOr<ImageAxes> InputLayoutAxes(const InferContext& c,
                                          const char* attr);

// Axes of a 4-D filter: output channels, input channels, height, width.
struct FilterAxes {
  int output, input, height, width;
};
absl::StatusOr<FilterAxes> FilterLayoutAxes(const InferContext& c,
                                            const char* fallback);

// The spatial options of a convolution or pooling, validated.
struct Window {
  std::array<int64_t, 4> padding;  // top, bottom, left, right
  std::array<int64_t, 2> strides;
  std::array<int64_t, 2> dilations;
};
absl::StatusOr<Window> ReadWindow(const InferContext& c);

// (k - 1) * d + 1, or an error naming `attr`.
absl::StatusOr<int64_t> EffectiveSize(int64_t kernel, int64_t dilation,
                                      const char* attr);
// Output size of a convolution window over one dimension:
// (input + pad_begin + pad_end - effective) / stride + 1, rounded down (or up
// with `ceil`). An error when the window does not fit.
absl::StatusOr<int64_t> WindowOutputSize(int64_t input, int64_t kernel,
                                         int64_t pad_begin, int64_t pad_end,
                                         int64_t stride, int64_t dilation,
                                         bool ceil, const char* what);

// The smallest kernel size that gives `output` from `input` (for inferring
// a convolution filter); an error when none does.
absl::StatusOr<int64_t> SolveKernelSize(int64_t input, int64_t output,
                                        int64_t pad_begin, int64_t pad_end,
                                        int64_t stride, int64_t dilation,
                                        const char* what);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_CONV_H_
