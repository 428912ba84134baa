// softmax along one axis of float32: the input seen as [outer, L, inner],
// one workgroup per (outer, inner) row (grid-stride), the row's maximum and
// sum of exponentials reduced in shared memory.
#version 450
#define SIZE 256
layout(local_size_x = SIZE) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint rows;   // outer · inner
  uint len;    // L
  uint inner;
} p;

shared float part[SIZE];

void main() {
  uint t = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    uint base = (row / p.inner) * p.len * p.inner + row % p.inner;
    float m = uintBitsToFloat(0xff800000u);
    for (uint i = t; i < p.len; i += SIZE) m = max(m, x[base + i * p.inner]);
    part[t] = m;
    // Every share is in before the tree reads it (and each level below).
    barrier();
    for (uint s = SIZE / 2; s > 0; s >>= 1) {
      if (t < s) part[t] = max(part[t], part[t + s]);
      barrier();
    }
    m = part[0];
    // Everyone has the maximum before part[] is reused for the sum.
    barrier();
    float sum = 0.0;
    for (uint i = t; i < p.len; i += SIZE) sum += exp(x[base + i * p.inner] - m);
    part[t] = sum;
    barrier();
    for (uint s = SIZE / 2; s > 0; s >>= 1) {
      if (t < s) part[t] += part[t + s];
      barrier();
    }
    sum = part[0];
    for (uint i = t; i < p.len; i += SIZE) {
      y[base + i * p.inner] = exp(x[base + i * p.inner] - m) / sum;
    }
    // The sum is read by everyone before the next row overwrites part[].
    barrier();
  }
}
