// IEEE 754 binary16 conversions with round-to-nearest-even.
//
// float16 tensors are stored as their 16-bit patterns. DoubleToHalf rounds a
// double straight to binary16 (no double rounding through float), overflows
// to infinity and keeps NaN a NaN.
#ifndef WEBNNM_ENGINE_BASE_FLOAT16_H_
#define WEBNNM_ENGINE_BASE_FLOAT16_H_

#include <cstdint>

namespace webnnm {

uint16_t DoubleToHalf(double value);
float HalfToFloat(uint16_t bits);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_FLOAT16_H_
