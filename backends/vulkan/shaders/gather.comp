// gather along one axis: the input seen as [outer, axis, inner], the
// result as [outer, indices, inner]. Elements of 32 or 64 bits (WORDS 1 or
// 2) are copied as words. Indices (INDEX: 0 int32, 1 uint32, 2 int64,
// 3 uint64) count from the end when negative and are clamped into the
// axis (index.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
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

#include "index.glsl"

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.total; e += stride) {
    uint i = e % p.inner, rest = e / p.inner;
    uint k = rest % p.count, o = rest / p.count;
    uint src = (o * p.axis + clamped_index(k, p.axis)) * p.inner + i;
    for (uint w = 0u; w < WORDS; ++w) y[e * WORDS + w] = x[src * WORDS + w];
  }
}
