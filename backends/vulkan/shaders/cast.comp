// cast among float32, float16, int32, uint32, int64, uint64, int8, uint8,
// int4 and uint4 (FROM and TO, codes 0..9), as the CPU backend: to float
// rounds; float to integer truncates toward zero and saturates, NaN -> 0;
// integer to integer keeps the low bits (int4/uint4: one byte each, the low
// 4 bits read, int4 sign-extended, and written sign-extended). Every tensor is read and written as 32-bit words: 8-
// and 16-bit elements packed four and two to a word, 64-bit ones as (low,
// high) pairs, without 8-, 16- or 64-bit shader features. Each invocation
// makes one result word (an 8-byte result: its two words).
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint FROM = 0;
layout(constant_id = 1) const uint TO = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push { uint n; } p;

// 0 float32, 1 float16, 2 int32, 3 uint32, 4 int64, 5 uint64, 6 int8,
// 7 uint8, 8 int4, 9 uint4.
uint size_of(uint t) {
  return t == 4u || t == 5u ? 8u : t == 1u ? 2u : t >= 6u ? 1u : 4u;
}
bool is_float(uint t) { return t <= 1u; }
bool is_signed(uint t) { return t == 2u || t == 4u || t == 6u || t == 8u; }

// A source element: as a float (float types), or as 64 integer bits.
float read_float(uint i) {
  if (FROM == 0u) return uintBitsToFloat(x[i]);
  return unpackHalf2x16(x[i >> 1] >> ((i & 1u) * 16u)).x;
}
uvec2 read_int(uint i) {  // (low, high), sign-extended
  uint s = size_of(FROM);
  if (s == 8u) return uvec2(x[2u * i], x[2u * i + 1u]);
  uint low = s == 4u ? x[i] : (x[i >> 2] >> ((i & 3u) * 8u)) & 0xffu;
  if (FROM == 6u && low >= 128u) low |= 0xffffff00u;
  if (FROM == 8u) low = uint(int(low << 28) >> 28);
  if (FROM == 9u) low &= 0xfu;
  bool negative = is_signed(FROM) && (low & 0x80000000u) != 0u;
  return uvec2(low, negative ? 0xffffffffu : 0u);
}

float int_to_float(uvec2 v) {
  if (is_signed(FROM) && (v.y & 0x80000000u) != 0u) {
    // -(~v + 1), in two halves.
    uint lo = ~v.x + 1u;
    uint hi = ~v.y + (lo == 0u ? 1u : 0u);
    return -(float(hi) * 4294967296.0 + float(lo));
  }
  return float(v.y) * 4294967296.0 + float(v.x);
}

// A float truncated and saturated to TO's range, as 64 bits.
uvec2 float_to_int(float f) {
  if (isnan(f)) return uvec2(0u);
  f = trunc(f);
  float lo_limit, hi_limit;
  if (TO == 2u) { lo_limit = -2147483648.0; hi_limit = 2147483647.0; }
  else if (TO == 3u) { lo_limit = 0.0; hi_limit = 4294967295.0; }
  else if (TO == 6u) { lo_limit = -128.0; hi_limit = 127.0; }
  else if (TO == 7u) { lo_limit = 0.0; hi_limit = 255.0; }
  else if (TO == 8u) { lo_limit = -8.0; hi_limit = 7.0; }
  else if (TO == 9u) { lo_limit = 0.0; hi_limit = 15.0; }
  else if (TO == 4u) { lo_limit = -9223372036854775808.0; hi_limit = 9223372036854775807.0; }
  else { lo_limit = 0.0; hi_limit = 18446744073709551615.0; }
  if (f >= hi_limit) {
    if (TO == 2u) return uvec2(0x7fffffffu, 0u);
    if (TO == 3u) return uvec2(0xffffffffu, 0u);
    if (TO == 4u) return uvec2(0xffffffffu, 0x7fffffffu);
    if (TO == 5u) return uvec2(0xffffffffu);
  }
  if (f <= lo_limit && TO == 2u) return uvec2(0x80000000u, 0xffffffffu);
  if (f <= lo_limit && TO == 4u) return uvec2(0u, 0x80000000u);
  f = clamp(f, lo_limit, hi_limit);
  if (TO != 4u && TO != 5u) {
    if (!is_signed(TO)) return uvec2(uint(f), 0u);
    int k = int(f);
    return uvec2(uint(k), k < 0 ? 0xffffffffu : 0u);
  }
  // 64 bits: the magnitude in two exact halves, then the sign.
  float m = abs(f);
  float hi = floor(m / 4294967296.0);
  uvec2 v = uvec2(uint(m - hi * 4294967296.0), uint(hi));
  if (f < 0.0) {
    uint lo = ~v.x + 1u;
    v = uvec2(lo, ~v.y + (lo == 0u ? 1u : 0u));
  }
  return v;
}

// Element i converted, as 64 bits (floats: their bit pattern in .x).
uvec2 convert(uint i) {
  if (is_float(FROM)) {
    float f = read_float(i);
    if (TO == 0u) return uvec2(floatBitsToUint(f), 0u);
    if (TO == 1u) return uvec2(packHalf2x16(vec2(f, 0.0)), 0u);
    return float_to_int(f);
  }
  uvec2 v = read_int(i);
  if (TO == 0u) return uvec2(floatBitsToUint(int_to_float(v)), 0u);
  if (TO == 1u) return uvec2(packHalf2x16(vec2(int_to_float(v), 0.0)), 0u);
  if (TO == 8u) return uvec2(uint(int(v.x << 28) >> 28), 0u);
  if (TO == 9u) return uvec2(v.x & 0xfu, 0u);
  return v;
}

void main() {
  uint s = size_of(TO);
  uint per_word = s >= 4u ? 1u : 4u / s;
  uint units = (p.n + per_word - 1u) / per_word;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint w = gl_GlobalInvocationID.x; w < units; w += stride) {
    if (s == 8u) {
      uvec2 v = convert(w);
      y[2u * w] = v.x;
      y[2u * w + 1u] = v.y;
    } else if (s == 4u) {
      y[w] = convert(w).x;
    } else {
      uint packed = 0u, mask = s == 2u ? 0xffffu : 0xffu;
      for (uint j = 0u; j < per_word; ++j) {
        uint i = w * per_word + j;
        if (i < p.n) packed |= (convert(i).x & mask) << (j * s * 8u);
      }
      y[w] = packed;
    }
  }
}
