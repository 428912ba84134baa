// Tensor storage and numbers: values written into, and read from, the
// bytes of a tensor of any data type, as graphs and backends store them
// (ir::RuntimeElementSize: float16 as its 16-bit pattern, int4/uint4 one
// element per byte).
//
// Writing rounds to the nearest integer for integer types and saturates
// to the type's range (NaN becomes 0; int4 to [-8, 7], uint4 to [0, 15]);
// float32 and float16 round as their conversions do. `out` must hold
// values.size() elements.
#ifndef WEBNNM_ENGINE_IR_ELEMENTS_H_
#define WEBNNM_ENGINE_IR_ELEMENTS_H_

#include <cstddef>
#include <span>
#include <vector>

#include "engine/ir/dtype.h"

namespace webnnm::ir {

void WriteElements(std::span<std::byte> out, DType dtype,
                   std::span<const double> values);
void WriteElements(std::span<std::byte> out, DType dtype,
                   std::span<const float> values);

// `count` elements of `in` as numbers (exact for every type but 64-bit
// integers beyond 2^53).
std::vector<double> ReadElements(std::span<const std::byte> in, DType dtype,
                                 size_t count);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_ELEMENTS_H_
