// The scatters, after the input has been copied into the result: each
// invocation writes one element of `updates` (32-bit, bits copied) at its
// target. MODE 0 scatterElements: the update's coordinate with its `axis`
// component replaced by the index. MODE 1 scatterND: row r of the updates
// (a slice) at the k coordinates indices[r, 0..k). Indices count from the
// end when negative and are clamped (index.glsl). Updates aimed at the same
// element race (one of them wins); the CPU writes them in order.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint INDEX = 0;
layout(constant_id = 1) const uint MODE = 0;
layout(constant_id = 2) const uint WORDS = 1;  // 2: 64-bit elements
layout(std430, binding = 0) readonly buffer I { uint idx[]; };
layout(std430, binding = 1) readonly buffer U { uint updates[]; };
layout(std430, binding = 2) buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint total;  // updates' elements
  uint rank;   // MODE 0: the rank (at most 8, kStridedRank); MODE 1: k
  uint axis;   // MODE 0
  uint slice;  // MODE 1: elements per slice
  uint shape[8];   // MODE 0: the updates' shape; MODE 1: the input's first k dims
  uint stride[8];  // the result's strides (MODE 1: of those k dims)
  uint axis_size;  // MODE 0
} p;

#include "index.glsl"

void main() {
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.total; e += step) {
    uint at = 0u;
    if (MODE == 0u) {
      uint rest = e;
      for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint c = rest % p.shape[d];
        rest /= p.shape[d];
        if (uint(d) == p.axis) c = clamped_index(e, p.axis_size);
        at += c * p.stride[d];
      }
    } else {
      uint row = e / p.slice;
      at = e % p.slice;
      for (uint d = 0u; d < p.rank; ++d) {
        at += clamped_index(row * p.rank + d, p.shape[d]) * p.stride[d];
      }
    }
    for (uint w = 0u; w < WORDS; ++w) y[at * WORDS + w] = updates[e * WORDS + w];
  }
}
