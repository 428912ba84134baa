// softmax along one axis of float32: the input seen as [outer, L, inner].
// SERIAL (short rows): one invocation per (outer, inner) row. Otherwise
// one workgroup per row (grid-stride), the row's maximum and sum of
// exponentials combined across the workgroup (group_reduce.glsl: subgroup
// operations in the subgroup variant, else shared memory).
// variants: subgroup
#version 450
#extension GL_GOOGLE_include_directive : require
#define SIZE 256
layout(local_size_x = SIZE) in;
layout(constant_id = 0) const bool SERIAL = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint rows;   // outer · inner
  uint len;    // L
  uint inner;
} p;

shared float part[SIZE];

#include "group_reduce.glsl"

uint row_base(uint row) {
  return (row / p.inner) * p.len * p.inner + row % p.inner;
}

void serial() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint row = gl_GlobalInvocationID.x; row < p.rows; row += stride) {
    uint base = row_base(row);
    float m = uintBitsToFloat(0xff800000u);
    for (uint i = 0u; i < p.len; ++i) m = max(m, x[base + i * p.inner]);
    float sum = 0.0;
    for (uint i = 0u; i < p.len; ++i) sum += exp(x[base + i * p.inner] - m);
    for (uint i = 0u; i < p.len; ++i) {
      y[base + i * p.inner] = exp(x[base + i * p.inner] - m) / sum;
    }
  }
}

void main() {
  if (SERIAL) {
    serial();
    return;
  }
  uint t = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    uint base = row_base(row);
    float m = uintBitsToFloat(0xff800000u);
    for (uint i = t; i < p.len; i += SIZE) m = max(m, x[base + i * p.inner]);
    m = group_combine(m, true);
    float sum = 0.0;
    for (uint i = t; i < p.len; i += SIZE) sum += exp(x[base + i * p.inner] - m);
    sum = group_combine(sum, false);
    for (uint i = t; i < p.len; i += SIZE) {
      y[base + i * p.inner] = exp(x[base + i * p.inner] - m) / sum;
    }
  }
}
