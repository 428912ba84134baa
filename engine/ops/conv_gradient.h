// What the gradient rules of conv2d and convTranspose2d share: bringing
// the operands to the canonical layouts (nchw input; oihw filter for
// conv2d, iohw for convTranspose2d) and back, and the filter gradient as a
// grouped convolution over the batch.
#ifndef WEBNNM_ENGINE_OPS_CONV_GRADIENT_H_
#define WEBNNM_ENGINE_OPS_CONV_GRADIENT_H_

#include <vector>

#include "engine/ops/conv.h"
#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

struct ConvGradient {
  std::vector<int> input_perm, filter_perm;  // node layout -> canonical
  Window window;
  int64_t groups = 1;
  ValueId x = ir::kNoValue, filter = ir::kNoValue, dy = ir::kNoValue;
  std::vector<int64_t> x_shape, filter_shape;  // canonical
};

// Reads the node's layouts, window and groups and transposes x, the
// filter and dy to the canonical layouts.
absl::StatusOr<ConvGradient> SetUpConvGradient(GradientBuilder& g,
                                               bool transposed);

// Convolution attributes with the node's padding and groups.
ir::Attrs ConvAttrs(const Window& w, std::array<int64_t, 2> strides,
                    std::array<int64_t, 2> dilations, int64_t groups);

// Sets the input's gradient from `dx` (canonical layout).
absl::Status SetInputGradient(GradientBuilder& g, const ConvGradient& c,
                              ValueId dx);

// Sets the filter's gradient: the grouped convolution of `spread` (its
// batch turned into each group's channels) with `window` (the other
// activation, channels first), dilated by the strides and strided by the
// dilations, cropped to the filter's size and put in the filter's layout.
// conv2d: spread = x, window = dy; convTranspose2d: spread = dy, window = x.
absl::Status SetFilterGradient(GradientBuilder& g, const ConvGradient& c,
                               ValueId spread, ValueId window);

// Sets the bias's gradient: dy summed over batch, height and width.
absl::Status SetBiasGradient(GradientBuilder& g, const ConvGradient& c);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_CONV_GRADIENT_H_
