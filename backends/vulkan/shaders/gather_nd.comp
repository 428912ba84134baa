// gatherND: result row r (the indices' leading coordinates) is the input's
// slice at the k coordinates indices[r, 0..k), each counted from the end
// when negative and clamped (index.glsl); 32-bit elements, bits copied.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint INDEX = 0;
layout(constant_id = 1) const uint WORDS = 1;  // 2: 64-bit elements
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) readonly buffer I { uint idx[]; };
layout(std430, binding = 2) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint total;  // result elements
  uint slice;  // elements per slice
  uint k;      // coordinates per index row, at most 8 (kStridedRank)
  uint shape[8];   // the input's first k dimensions
  uint stride[8];  // and their strides
} p;

#include "index.glsl"

void main() {
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.total; e += step) {
    uint row = e / p.slice, src = e % p.slice;
    for (uint d = 0u; d < p.k; ++d) {
      src += clamped_index(row * p.k + d, p.shape[d]) * p.stride[d];
    }
    for (uint w = 0u; w < WORDS; ++w) y[e * WORDS + w] = x[src * WORDS + w];
  }
}
