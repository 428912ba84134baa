// 2-D pooling: averagePool2d, l2Pool2d, maxPool2d.
//
// Operand: input (4-D, nchw or nhwc). Options: windowDimensions [height,
// width] (default: the whole input height and width), padding [top, bottom,
// left, right], strides, dilations [height, width], layout (nchw | nhwc),
// outputShapeRounding (floor | ceil; also spelled roundingType),
// outputSizes [height, width] (when given: both the floor sizes or both
// the ceil sizes).
// Result: the input's type and layout, pooled height and width.
#ifndef WEBNNM_ENGINE_OPS_POOL_H_
#define WEBNNM_ENGINE_OPS_POOL_H_

#include <array>

#include "engine/ir/gradient.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

ir::OpDef PoolOp(ir::OpKind kind, const char* name, DTypeSet types);

// ---- gradients (in nchw; the rules transpose nhwc to it and back) --------
struct PoolGradientGeometry {
  std::vector<int> to_nchw;  // the permutation from the node's layout
  std::array<int64_t, 2> input = {}, output = {}, window = {};
  std::array<int64_t, 2> strides = {}, dilations = {}, pad_begin = {};
};
absl::StatusOr<PoolGradientGeometry> ReadPoolGeometry(
    const ir::GradientBuilder& g);
// Σ over the windows that read each input position of `v` ([N, C, OH, OW]),
// divided by each window's tap count when `average`: [N, C, H, W].
absl::StatusOr<ir::ValueId> SpreadPooled(ir::GradientBuilder& g,
                                         const PoolGradientGeometry& geometry,
                                         ir::ValueId v, bool average);
// The max-pooling gradient: dy of each window to its first maximal tap.
absl::StatusOr<ir::ValueId> MaxPoolSpread(ir::GradientBuilder& g,
                                          const PoolGradientGeometry& geometry,
                                          ir::ValueId x, ir::ValueId y,
                                          ir::ValueId dy);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_POOL_H_
