// gather along one axis: the input seen as [outer, axis, inner], the
// result as [outer, indices, inner]. Elements of 32 or 64 bits (WORDS 1 or
// 2) are copied as words. Indices (INDEX: 0 int32, 1 uint32, 2 int64,
// 3 uint64) count from the end when negative and are clamped into the
// axis, so nothing is read out of bounds whatever the index data (as on
// the CPU).
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint WORDS = 1;
layout(constant_id = 1) const uint INDEX = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) readonly buffer I { uint idx[]; };
layout(std430, binding = 2) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint total;  // result elements
  uint count;  // indices
  uint inner;
  uint axis;   // the axis' size
} p;

uint clamped(uint k) {
  int n = int(p.axis);
  if (INDEX == 1u) return min(idx[k], p.axis - 1u);
  if (INDEX == 0u) {
    int v = int(idx[k]);
    if (v < 0) v += n;
    return uint(clamp(v, 0, n - 1));
  }
  uint lo = idx[2u * k], hi = idx[2u * k + 1u];
  if (INDEX == 3u || (hi & 0x80000000u) == 0u) {  // non-negative
    return hi != 0u ? p.axis - 1u : min(lo, p.axis - 1u);
  }
  // Negative: counts from the end when it fits in 32 bits.
  if (hi != 0xffffffffu || lo < 0x80000000u) return 0u;
  int v = int(lo) + n;
  return uint(clamp(v, 0, n - 1));
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.total; e += stride) {
    uint i = e % p.inner, rest = e / p.inner;
    uint k = rest % p.count, o = rest / p.count;
    uint src = (o * p.axis + clamped(k)) * p.inner + i;
    for (uint w = 0u; w < WORDS; ++w) y[e * WORDS + w] = x[src * WORDS + w];
  }
}
