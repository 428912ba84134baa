// quantizeLinear (DEQUANTIZE 0) and dequantizeLinear (DEQUANTIZE 1), as the
// CPU backend computes them (backends/cpu/kernels/quantize.cc), with scale
// and zeroPoint broadcast blockwise: element c of the input uses parameter
// Σ_d (c_d / block_d) · pstride_d.
//   quantize:   y = clamp(roundEven(x / scale) + zeroPoint) to QTYPE's range;
//               a NaN quotient gives the zero point. Ties are decided
//               exactly: the sign of x − (floor(x/scale) + 0.5)·scale (fma).
//   dequantize: y = (x − zeroPoint) · scale, the difference exact and the
//               product compensated (see scaled()).
// QTYPE: 0 int8, 1 uint8, 2 int32, 3 int4, 4 uint4 (one byte each, the low
// 4 bits), 5 uint32; HALF: the float tensors (x or y, and scale) are
// float16. Tensors are read and written as 32-bit words; each invocation
// makes one word of the result.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint DEQUANTIZE = 0;
layout(constant_id = 1) const uint QTYPE = 0;
layout(constant_id = 2) const uint HALF = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) readonly buffer S { uint scale[]; };
layout(std430, binding = 2) readonly buffer Z { uint zero[]; };
layout(std430, binding = 3) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 8: kStridedRank (shaders.h)
  uint shape[8];
  uint block[8];
  uint pstride[8];
} p;

uint q_bytes() { return QTYPE == 2u || QTYPE == 5u ? 4u : 1u; }

int q_value(uint word_or_byte) {
  if (QTYPE == 2u) return int(word_or_byte);
  uint b = word_or_byte & 0xffu;
  if (QTYPE == 0u) return int(b << 24) >> 24;
  if (QTYPE == 1u) return int(b);
  if (QTYPE == 3u) return int(b << 28) >> 28;
  return int(b & 0xfu);
}
int read_x_q(uint i) {
  return q_value(QTYPE == 2u ? x[i] : x[i >> 2] >> ((i & 3u) * 8u));
}
int read_zero(uint i) {
  return q_value(QTYPE == 2u ? zero[i] : zero[i >> 2] >> ((i & 3u) * 8u));
}
float read_x_float(uint i) {
  if (HALF == 0u) return uintBitsToFloat(x[i]);
  return unpackHalf2x16(x[i >> 1] >> ((i & 1u) * 16u)).x;
}
float read_scale(uint i) {
  if (HALF == 0u) return uintBitsToFloat(scale[i]);
  return unpackHalf2x16(scale[i >> 1] >> ((i & 1u) * 16u)).x;
}

uint parameter(uint i) {
  uint at = 0u, rest = i;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    uint c = rest % p.shape[d];
    rest /= p.shape[d];
    at += c / p.block[d] * p.pstride[d];
  }
  return at;
}

// x / s rounded to the nearest integer, ties to even.
float round_quotient(float v, float s) {
  float q = v / s;
  if (isnan(q) || isinf(q) || abs(q) >= 8388608.0) return q;
  float f = floor(q);
  precise float e = fma(-(f + 0.5), s, v);
  float side = s > 0.0 ? e : -e;
  if (side > 0.0) return f + 1.0;
  if (side < 0.0) return f;
  return mod(f, 2.0) == 0.0 ? f : f + 1.0;
}

// magnitude · s with the sign `negative`, where the magnitude (< 2^32) may
// not fit a float: its rounded part and the rest, each product's rounding
// error recovered with fma, so that the result is rounded about once.
float scaled(uint magnitude, bool negative, float s) {
  float high = float(magnitude);
  // float(magnitude) rounds to nearest: the rest is below 2^8 in size.
  uint high_bits = uint(high);
  float rest = magnitude >= high_bits ? float(magnitude - high_bits)
                                      : -float(high_bits - magnitude);
  precise float product = high * s;
  precise float error = fma(high, s, -product);
  float v = product + (error + rest * s);
  return negative ? -v : v;
}

uint float_result(float v) {
  return HALF == 1u ? packHalf2x16(vec2(v, 0.0)) : floatBitsToUint(v);
}

// Element i's result bits (in the low bits of the word).
// quantizeLinear to uint32: q + zeroPoint saturated to [0, 2^32 - 1], in
// integers (q is integral; below 2^32 in size its magnitude is exact).
uint quantized_uint32(float q, uint zu) {
  if (isnan(q)) return zu;
  if (q >= 4294967296.0) return 0xffffffffu;
  if (q <= -4294967296.0) return 0u;
  uint m = uint(abs(q));
  if (q >= 0.0) return zu + m < zu ? 0xffffffffu : zu + m;
  return m > zu ? 0u : zu - m;
}

uint result(uint i) {
  uint k = parameter(i);
  if (QTYPE == 5u) {  // uint32
    uint zu = zero[k];
    if (DEQUANTIZE == 0u) {
      return quantized_uint32(round_quotient(read_x_float(i), read_scale(k)),
                              zu);
    }
    uint xu = x[i];
    return float_result(xu >= zu ? scaled(xu - zu, false, read_scale(k))
                                 : scaled(zu - xu, true, read_scale(k)));
  }
  int z = read_zero(k);
  if (DEQUANTIZE == 1u) {
    // The difference exactly, as a magnitude below 2^32 and a sign.
    int xq = read_x_q(i);
    bool negative = xq < z;
    uint magnitude = negative ? uint(z) - uint(xq) : uint(xq) - uint(z);
    return float_result(scaled(magnitude, negative, read_scale(k)));
  }
  float q = round_quotient(read_x_float(i), read_scale(k));
  float lo = QTYPE == 0u   ? -128.0
             : QTYPE == 3u ? -8.0
             : QTYPE == 2u ? -2147483648.0
                           : 0.0;
  float hi = QTYPE == 0u   ? 127.0
             : QTYPE == 1u ? 255.0
             : QTYPE == 3u ? 7.0
             : QTYPE == 4u ? 15.0
                           : 2147483647.0;
  if (isnan(q)) return uint(z);
  float v = q + float(z);
  if (abs(q) < 16777216.0 && abs(float(z)) < 16777216.0) {
    // Exact in integers where the float sum might round (int32).
    int sum = int(q) + z;
    if (float(sum) <= lo) return uint(int(lo));
    if (QTYPE == 2u || float(sum) < hi) return uint(sum);
    return uint(int(hi));
  }
  if (v <= lo) return uint(int(lo));
  if (v >= hi) return QTYPE == 2u ? 0x7fffffffu : uint(int(hi));
  return uint(int(v));
}

void main() {
  uint bytes = DEQUANTIZE == 1u ? (HALF == 1u ? 2u : 4u) : q_bytes();
  uint per_word = 4u / bytes;
  uint words = (p.n + per_word - 1u) / per_word;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint mask = bytes == 4u ? 0xffffffffu : bytes == 2u ? 0xffffu : 0xffu;
  for (uint w = gl_GlobalInvocationID.x; w < words; w += stride) {
    uint packed = 0u;
    for (uint j = 0u; j < per_word; ++j) {
      uint i = w * per_word + j;
      if (i < p.n) packed |= (result(i) & mask) << (j * bytes * 8u);
    }
    y[w] = packed;
  }
}
