// Element-wise operations with two operands and broadcasting:
// z[i] = f(a[offset_a(i)], b[offset_b(i)]), where each offset walks the
// output's coordinates with the operand's strides (0 along a broadcast
// dimension). The operation (OP) and the type (TYPE: 0 float32, 1 int32,
// 2 uint32, 3 int64, 4 uint64 — 64-bit elements as (low, high) word pairs)
// are specialization constants. Integer arithmetic wraps around; integer
// division truncates, x / 0 = 0 and INT_MIN / -1 = INT_MIN, as on the CPU.
// Built with HALF (the half variant, for devices with 16-bit storage):
// float16 tensors read and written as float16, the operation computed in
// float32 and rounded once, as the CPU does.
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
layout(std430, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, binding = 2) writeonly buffer Z { float16_t z[]; };
#else
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer Z { uint z[]; };
#endif
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 8: kStridedRank (shaders.h)
  uint shape[8];
  uint stride_a[8];
  uint stride_b[8];
} p;

// pow as C's: exact signs for integral exponents of negative bases, NaN
// for other exponents of negative bases, x^0 = 1.
float power(float u, float v) {
  if (v == 0.0) return 1.0;
  if (u == 0.0) return v > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
  if (u < 0.0) {
    if (v != floor(v)) return uintBitsToFloat(0x7fc00000u);
    float r = pow(-u, v);
    return mod(v, 2.0) == 0.0 ? r : -r;
  }
  return pow(u, v);
}

float apply(float u, float v) {
  switch (OP) {
    case 0: return u + v;
    case 1: return u - v;
    case 2: return u * v;
    case 3: return u / v;
    case 4: return (isnan(u) || isnan(v)) ? u + v : max(u, v);
    case 5: return (isnan(u) || isnan(v)) ? u + v : min(u, v);
    case 6: return power(u, v);
    case 7: return u >= 0.0 ? u : u * v;  // prelu
    default: return u;
  }
}

int power_int(int u, int v) {
  if (v < 0) return u == 1 ? 1 : u == -1 ? ((v & 1) != 0 ? -1 : 1) : 0;
  int result = 1, base = u;
  for (uint e = uint(v); e != 0u; e >>= 1) {
    if ((e & 1u) != 0u) result *= base;
    base *= base;
  }
  return result;
}

uint power_uint(uint u, uint v) {
  uint result = 1u, base = u;
  for (uint e = v; e != 0u; e >>= 1) {
    if ((e & 1u) != 0u) result *= base;
    base *= base;
  }
  return result;
}

uint apply_int(uint bu, uint bv) {
  if (TYPE == 2u) {
    uint u = bu, v = bv;
    switch (OP) {
      case 0: return u + v;
      case 1: return u - v;
      case 2: return u * v;
      case 3: return v == 0u ? 0u : u / v;
      case 4: return max(u, v);
      case 5: return min(u, v);
      case 6: return power_uint(u, v);
      default: return u;  // prelu: never negative
    }
  }
  int u = int(bu), v = int(bv);
  switch (OP) {
    case 0: return uint(u + v);
    case 1: return uint(u - v);
    case 2: return uint(u * v);
    case 3:
      if (v == 0) return 0u;
      if (u == int(0x80000000u) && v == -1) return uint(u);
      return uint(u / v);
    case 4: return uint(max(u, v));
    case 5: return uint(min(u, v));
    case 6: return uint(power_int(u, v));
    default: return uint(u >= 0 ? u : u * v);  // prelu
  }
}

#include "int64.glsl"

uvec2 apply64(uvec2 u, uvec2 v) {
  bool signed_ = TYPE == 3u;
  switch (OP) {
    case 0: return add64(u, v);
    case 1: return sub64(u, v);
    case 2: return mul64(u, v);
    case 3: return div64(u, v, signed_);
    case 4: return less64(u, v, signed_) ? v : u;
    case 5: return less64(v, u, signed_) ? v : u;
    case 6: return pow64(u, v, signed_);
    default:  // prelu
      return signed_ && negative64(u) ? mul64(u, v) : u;
  }
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
    uint rest = i, ia = 0, ib = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      uint c = rest % p.shape[d];
      rest /= p.shape[d];
      ia += c * p.stride_a[d];
      ib += c * p.stride_b[d];
    }
#ifdef HALF
    z[i] = float16_t(apply(float(a[ia]), float(b[ib])));
#else
    if (TYPE >= 3u) {
      uvec2 r = apply64(uvec2(a[2u * ia], a[2u * ia + 1u]),
                        uvec2(b[2u * ib], b[2u * ib + 1u]));
      z[2u * i] = r.x;
      z[2u * i + 1u] = r.y;
    } else {
      z[i] = TYPE == 0u ? floatBitsToUint(apply(uintBitsToFloat(a[ia]),
                                                uintBitsToFloat(b[ib])))
                        : apply_int(a[ia], b[ib]);
    }
#endif
  }
}
