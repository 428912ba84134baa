// gatherElements: y[c] = x[c with c[axis] replaced by indices[c]] for every
// coordinate c of the indices (32-bit elements, bits copied). Indices
// (INDEX: 0 int32, 1 uint32, 2 int64, 3 uint64) count from the end when
// negative and are clamped into the axis, as on the CPU.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint INDEX = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) readonly buffer I { uint idx[]; };
layout(std430, binding = 2) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 6
  uint axis;
  uint out_shape[6];
  uint in_stride[6];
  uint axis_size;
} p;

uint clamped(uint k) {
  int n = int(p.axis_size);
  if (INDEX == 1u) return min(idx[k], p.axis_size - 1u);
  int v;
  if (INDEX == 0u) {
    v = int(idx[k]);
  } else {
    uint lo = idx[2u * k], hi = idx[2u * k + 1u];
    if (INDEX == 3u || (hi & 0x80000000u) == 0u) {  // non-negative
      return hi != 0u ? p.axis_size - 1u : min(lo, p.axis_size - 1u);
    }
    if (hi != 0xffffffffu || lo < 0x80000000u) return 0u;
    v = int(lo);
  }
  if (v < 0) v += n;
  return uint(clamp(v, 0, n - 1));
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.n; e += stride) {
    uint rest = e, src = 0u;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      uint c = rest % p.out_shape[d];
      rest /= p.out_shape[d];
      if (uint(d) == p.axis) c = clamped(e);
      src += c * p.in_stride[d];
    }
    y[e] = x[src];
  }
}
