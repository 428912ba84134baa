#include "backends/cpu/element.h"

namespace webnnm::backends::cpu {

uint16_t FloatToHalfBits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof(x));
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t magnitude = x & 0x7FFFFFFF;
  if (magnitude >= 0x7F800000) {  // infinity or NaN
    return sign | (magnitude > 0x7F800000 ? 0x7E00 : 0x7C00);
  }
  if (magnitude >= 0x477FF000) return sign | 0x7C00;  // rounds to >= 65520
  if (magnitude < 0x38800000) {
    // Subnormal half (or zero): the value in units of 2^-24, rounded.
    if (magnitude < 0x33000000) return sign;  // below half of 2^-24
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7FFFFF) | 0x800000;
    uint32_t shift = 126 - exponent;  // 14 + (127 - exponent) - 23 + 24
    uint32_t rounded = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (rounded & 1))) ++rounded;
    return sign | static_cast<uint16_t>(rounded);
  }
  // Normal: rebias the exponent and round the mantissa to 10 bits.
  uint32_t rebased = magnitude - 0x38000000;  // (127 - 15) << 23
  uint32_t rounded = rebased >> 13;
  uint32_t rest = rebased & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (rounded & 1))) ++rounded;
  return sign | static_cast<uint16_t>(rounded);
}

float HalfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1F;
  uint32_t mantissa = bits & 0x3FF;
  uint32_t x;
  if (exponent == 0x1F) {
    x = sign | 0x7F800000 | (mantissa << 13);
  } else if (exponent != 0) {
    x = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    x = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3FF;
    x = sign | ((113 - shift) << 23) | (mantissa << 13);
  }
  float result;
  std::memcpy(&result, &x, sizeof(result));
  return result;
}

}  // namespace webnnm::backends::cpu
