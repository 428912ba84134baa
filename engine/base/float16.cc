#include "engine/base/float16.h"

#include <cmath>
#include <cstring>

namespace webnnm {

uint16_t DoubleToHalf(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7E00;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | 0x7C00;
  // Largest finite half is 65504; values at or above 65520 round to infinity.
  if (magnitude >= 65520.0) return sign | 0x7C00;
  if (magnitude == 0) return sign;
  int exponent;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5,1)
  // Unit in the last place: normal halves have 10 fraction bits; below 2^-14
  // the spacing is fixed at 2^-24.
  int ulp_exp = exponent - 11;
  if (ulp_exp < -24) ulp_exp = -24;
  double scaled = std::ldexp(magnitude, -ulp_exp);  // exact: a power-of-2 scale
  double rounded = std::nearbyint(scaled);  // default mode: to nearest even
  uint32_t mantissa = static_cast<uint32_t>(rounded);
  // mantissa * 2^ulp_exp is the rounded value; encode it.
  if (ulp_exp == -24) {
    // Subnormal range (or the smallest normal after rounding up).
    return sign | static_cast<uint16_t>(mantissa);
  }
  if (mantissa >= 2048) {  // rounding carried into the next binade
    mantissa >>= 1;
    ++ulp_exp;
  }
  int biased = ulp_exp + 10 + 15;
  if (biased >= 31) return sign | 0x7C00;
  return sign | static_cast<uint16_t>((biased << 10) | (mantissa & 0x3FF));
}

float HalfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1F;
  uint32_t fraction = bits & 0x3FF;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(fraction), -24);
  } else if (exponent == 31) {
    magnitude = fraction ? NAN : INFINITY;
  } else {
    magnitude = std::ldexp(static_cast<float>(fraction | 0x400),
                           static_cast<int>(exponent) - 25);
  }
  uint32_t out;
  std::memcpy(&out, &magnitude, sizeof(out));
  out |= sign;
  float result;
  std::memcpy(&result, &out, sizeof(result));
  return result;
}

}  // namespace webnnm
