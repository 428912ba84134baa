// Element-wise operations with two float32 operands and broadcasting:
// z[i] = f(a[offset_a(i)], b[offset_b(i)]), where each offset walks the
// output's coordinates with the operand's strides (0 along a broadcast
// dimension). The operation is a specialization constant (OP).
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint OP = 0;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 6
  uint shape[6];
  uint stride_a[6];
  uint stride_b[6];
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
    z[i] = apply(a[ia], b[ib]);
  }
}
