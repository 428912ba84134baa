// Element-wise operations with one operand: y[i] = f(x[i]). The operation
// (OP, numbered as in backends/vulkan/kernels/elementwise.cc) and the type
// (TYPE: 0 float32, 1 int32, 2 uint32, 3 int64, 4 uint64 — 64-bit elements
// as (low, high) word pairs) are specialization constants; alpha and beta
// are its attributes (elu, leakyRelu, hardSigmoid, linear, clamp; for an
// integer clamp, the bounds' integer bits: their low words, and for 64 bits
// their high words in alpha_high and beta_high). Integer negation and abs
// wrap around, as on the CPU. Built with HALF (the half variant, for
// devices with 16-bit storage): float16 tensors read and written as
// float16, the operation computed in float32 and rounded once, as the CPU
// does.
// variants: half
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef HALF
#extension GL_EXT_shader_16bit_storage : require
#endif
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint TYPE = 0;
#ifdef HALF
layout(std430, binding = 0) readonly buffer X { float16_t x[]; };
layout(std430, binding = 1) writeonly buffer Y { float16_t y[]; };
#else
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
#endif
layout(push_constant) uniform Push {
  uint n;
  float alpha;
  float beta;
  uint alpha_high;
  uint beta_high;
} p;

#include "int64.glsl"

float erf_approx(float v) {
  // Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7).
  float s = sign(v);
  float a = abs(v);
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 +
               t * (-1.453152027 + t * 1.061405429))));
  return s * (1.0 - poly * exp(-a * a));
}

// erfc from Numerical Recipes' erfcc (fractional error below 1.2e-7
// everywhere): gelu uses it directly, which keeps its negative half free of
// the cancellation in 1 + erf.
float erfc_nr(float z) {
  float a = abs(z);
  float t = 1.0 / (1.0 + 0.5 * a);
  float r = t * exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 +
            t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 +
            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 +
            t * 0.17087277)))))))));
  return z >= 0.0 ? r : 2.0 - r;
}

float apply(float v) {
  switch (OP) {
    case 0: return v;                                   // identity
    case 1: return abs(v);                              // abs
    case 2: return -v;                                  // neg
    case 3: return isnan(v) ? v : sign(v);              // sign
    case 4: return max(v, 0.0);                         // relu
    case 5: return 1.0 / (1.0 + exp(-v));               // sigmoid
    case 6: return tanh(v);                             // tanh
    case 7: return exp(v);                              // exp
    case 8: return log(v);                              // log
    case 9: return sqrt(v);                             // sqrt
    case 10: return 1.0 / v;                            // reciprocal
    case 11: return ceil(v);                            // ceil
    case 12: return floor(v);                           // floor
    case 13: return sin(v);                             // sin
    case 14: return cos(v);                             // cos
    case 15: return tan(v);                             // tan
    case 16: return erf_approx(v);                      // erf
    case 17: return roundEven(v);                       // roundEven
    case 18: return v / (1.0 + abs(v));                 // softsign
    case 19: return max(v, 0.0) + log(1.0 + exp(-abs(v)));  // softplus
    case 20: return v >= 0.0 ? v : p.alpha * (exp(v) - 1.0);  // elu
    case 21: return v >= 0.0 ? v : p.alpha * v;         // leakyRelu
    case 22: return max(0.0, min(1.0, p.alpha * v + p.beta));  // hardSigmoid
    case 23: return v * max(0.0, min(1.0, v / 6.0 + 0.5));     // hardSwish
    case 24: return 0.5 * v * erfc_nr(-v * 0.70710678118654752);  // gelu
    case 25: return p.alpha * v + p.beta;               // linear
    case 26: return min(max(v, p.alpha), p.beta);       // clamp
    default: return v;
  }
}

uint apply_int(uint bits) {
  if (TYPE == 2u) {
    uint v = bits;
    switch (OP) {
      case 2: return 0u - v;                       // neg
      case 3: return v > 0u ? 1u : 0u;             // sign
      case 26: return clamp(v, floatBitsToUint(p.alpha), floatBitsToUint(p.beta));
      default: return v;                           // identity, abs, relu
    }
  }
  int v = int(bits);
  switch (OP) {
    case 1: return uint(v < 0 ? -v : v);           // abs
    case 2: return uint(-v);                       // neg
    case 3: return uint(v > 0 ? 1 : (v < 0 ? -1 : 0));  // sign
    case 4: return uint(max(v, 0));                // relu
    case 26: return uint(clamp(v, floatBitsToInt(p.alpha), floatBitsToInt(p.beta)));
    default: return uint(v);
  }
}

uvec2 apply64(uvec2 v) {
  bool signed_ = TYPE == 3u;
  bool below_zero = signed_ && negative64(v);
  switch (OP) {
    case 1: return below_zero ? neg64(v) : v;                   // abs
    case 2: return neg64(v);                                    // neg
    case 3:                                                     // sign
      if (below_zero) return uvec2(0xffffffffu);
      return v == uvec2(0u) ? v : uvec2(1u, 0u);
    case 4: return below_zero ? uvec2(0u) : v;                  // relu
    case 26: {                                                  // clamp
      uvec2 lo = uvec2(floatBitsToUint(p.alpha), p.alpha_high);
      uvec2 hi = uvec2(floatBitsToUint(p.beta), p.beta_high);
      if (less64(v, lo, signed_)) return lo;
      return less64(hi, v, signed_) ? hi : v;
    }
    default: return v;
  }
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
#ifdef HALF
    y[i] = float16_t(apply(float(x[i])));
#else
    if (TYPE >= 3u) {
      uvec2 r = apply64(uvec2(x[2u * i], x[2u * i + 1u]));
      y[2u * i] = r.x;
      y[2u * i + 1u] = r.y;
    } else {
      y[i] = TYPE == 0u ? floatBitsToUint(apply(uintBitsToFloat(x[i])))
                        : apply_int(x[i]);
    }
#endif
  }
}
