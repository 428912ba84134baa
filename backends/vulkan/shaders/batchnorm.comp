// batchNormalization of float32 with given statistics: y = (x - mean[c]) /
// sqrt(variance[c] + epsilon) · scale[c] + bias[c], c the index along the
// axis (the input seen as [outer, C, inner]). One invocation per element.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool HAS_SCALE = false;
layout(constant_id = 1) const bool HAS_BIAS = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer M { float mean[]; };
layout(std430, binding = 2) readonly buffer V { float variance[]; };
layout(std430, binding = 3) readonly buffer S { float scale[]; };
layout(std430, binding = 4) readonly buffer B { float bias[]; };
layout(std430, binding = 5) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint channels;
  uint inner;
  float epsilon;
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
    uint c = (i / p.inner) % p.channels;
    float v = (x[i] - mean[c]) / sqrt(variance[c] + p.epsilon);
    if (HAS_SCALE) v *= scale[c];
    if (HAS_BIAS) v += bias[c];
    y[i] = v;
  }
}
