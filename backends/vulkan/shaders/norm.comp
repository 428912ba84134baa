// layerNormalization and instanceNormalization of float32: the input seen
// as kept × reduced coordinates (each with its strides, the reduced ones in
// the order scale and bias follow). One workgroup per kept coordinate
// (grid-stride): the mean, then the variance of (x - mean), reduced in
// shared memory, then y = (x - mean) / sqrt(variance + epsilon) · scale +
// bias. CHANNEL: scale and bias are indexed by a kept coordinate (instance
// normalization: the channel) rather than by the reduced position.
#version 450
#define SIZE 256
layout(local_size_x = SIZE) in;
layout(constant_id = 0) const bool HAS_SCALE = false;
layout(constant_id = 1) const bool HAS_BIAS = false;
layout(constant_id = 2) const bool CHANNEL = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer S { float scale[]; };
layout(std430, binding = 2) readonly buffer B { float bias[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint groups;   // kept coordinates
  uint reduced;  // elements per group
  uint kept_rank, reduced_rank;  // each at most 4
  uint kept_shape[4];
  uint kept_stride[4];
  uint reduced_shape[4];
  uint reduced_stride[4];
  uint channel_dim;  // CHANNEL: which kept dimension indexes scale and bias
  float epsilon;
} p;

shared float part[SIZE];

float total(float mine) {
  uint t = gl_LocalInvocationID.x;
  part[t] = mine;
  // Every share is in before the tree reads it (and each level below).
  barrier();
  for (uint s = SIZE / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    barrier();
  }
  float result = part[0];
  // Everyone has the result before part[] is reused.
  barrier();
  return result;
}

uint reduced_offset(uint r) {
  uint offset = 0u;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    offset += (r % p.reduced_shape[d]) * p.reduced_stride[d];
    r /= p.reduced_shape[d];
  }
  return offset;
}

void main() {
  uint t = gl_LocalInvocationID.x;
  for (uint g = gl_WorkGroupID.x; g < p.groups; g += gl_NumWorkGroups.x) {
    uint base = 0u, rest = g, channel = 0u;
    for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
      uint c = rest % p.kept_shape[d];
      rest /= p.kept_shape[d];
      base += c * p.kept_stride[d];
      if (uint(d) == p.channel_dim) channel = c;
    }
    float sum = 0.0;
    for (uint r = t; r < p.reduced; r += SIZE) sum += x[base + reduced_offset(r)];
    float mean = total(sum) / float(p.reduced);
    float squares = 0.0;
    for (uint r = t; r < p.reduced; r += SIZE) {
      float v = x[base + reduced_offset(r)] - mean;
      squares += v * v;
    }
    float inv = 1.0 / sqrt(total(squares) / float(p.reduced) + p.epsilon);
    for (uint r = t; r < p.reduced; r += SIZE) {
      uint at = base + reduced_offset(r);
      uint k = CHANNEL ? channel : r;
      float v = (x[at] - mean) * inv;
      if (HAS_SCALE) v *= scale[k];
      if (HAS_BIAS) v += bias[k];
      y[at] = v;
    }
  }
}
