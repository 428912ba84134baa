// Shared checks of quantizeLinear and dequantizeLinear.
#ifndef WEBNNM_ENGINE_OPS_QUANTIZE_H_
#define WEBNNM_ENGINE_OPS_QUANTIZE_H_

#include "engine/ops/rules.h"

namespace webnnm::ops {

inline constexpr DTypeSet kQuantizedTypes = {DType::kUint8, DType::kInt8,
                                             DType::kUint4, DType::kInt4,
                                             DType::kInt32, DType::kUint32};

// scale (slot 1) and zeroPoint (slot 2) have the same shape, which broadcasts
// blockwise to the input (slot 0): right-aligned, each input dimension a
// multiple of the corresponding scale dimension.
absl::Status CheckBlockwise(const InferContext& c);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_QUANTIZE_H_
