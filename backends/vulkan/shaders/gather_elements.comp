// gatherElements: y[c] = x[c with c[axis] replaced by indices[c]] for every
// coordinate c of the indices (32-bit elements, bits copied). Indices
// (INDEX: 0 int32, 1 uint32, 2 int64, 3 uint64) count from the end when
// negative and are clamped into the axis (index.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint INDEX = 0;
layout(constant_id = 1) const uint WORDS = 1;  // 2: 64-bit elements
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) readonly buffer I { uint idx[]; };
layout(std430, binding = 2) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 8: kStridedRank (shaders.h)
  uint axis;
  uint out_shape[8];
  uint in_stride[8];
  uint axis_size;
} p;

#include "index.glsl"

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.n; e += stride) {
    uint rest = e, src = 0u;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      uint c = rest % p.out_shape[d];
      rest /= p.out_shape[d];
      if (uint(d) == p.axis) c = clamped_index(e, p.axis_size);
      src += c * p.in_stride[d];
    }
    for (uint w = 0u; w < WORDS; ++w) y[e * WORDS + w] = x[src * WORDS + w];
  }
}
