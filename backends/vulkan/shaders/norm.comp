// layerNormalization and instanceNormalization of float32: the input seen
// as kept × reduced coordinates (each with its strides, the reduced ones in
// the order scale and bias follow). For each kept coordinate: the mean,
// then the variance of (x - mean), then y = (x - mean) /
// sqrt(variance + epsilon) · scale + bias. SERIAL (few reduced elements):
// one invocation per kept coordinate; otherwise one workgroup per kept
// coordinate (grid-stride), the sums combined across the workgroup
// (group_reduce.glsl: subgroup operations in the subgroup variant, else
// shared memory). CHANNEL: scale and bias are indexed by a kept coordinate
// (instance normalization: the channel) rather than by the reduced
// position.
// variants: subgroup
#version 450
#extension GL_GOOGLE_include_directive : require
#define SIZE 256
layout(local_size_x = SIZE) in;
layout(constant_id = 0) const bool HAS_SCALE = false;
layout(constant_id = 1) const bool HAS_BIAS = false;
layout(constant_id = 2) const bool CHANNEL = false;
layout(constant_id = 3) const bool SERIAL = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer S { float scale[]; };
layout(std430, binding = 2) readonly buffer B { float bias[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint groups;   // kept coordinates
  uint reduced;  // elements per group
  // At most 4 and 8: kNormKeptRank and kNormReducedRank (shaders.h).
  uint kept_rank, reduced_rank;
  uint kept_shape[4];
  uint kept_stride[4];
  uint reduced_shape[8];
  uint reduced_stride[8];
  uint channel_dim;  // CHANNEL: which kept dimension indexes scale and bias
  float epsilon;
} p;

shared float part[SIZE];

#include "group_reduce.glsl"

uint reduced_offset(uint r) {
  uint offset = 0u;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    offset += (r % p.reduced_shape[d]) * p.reduced_stride[d];
    r /= p.reduced_shape[d];
  }
  return offset;
}

// The offset of kept coordinate g, and its channel (for CHANNEL).
uint kept_base(uint g, out uint channel) {
  uint base = 0u, rest = g;
  channel = 0u;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    uint c = rest % p.kept_shape[d];
    rest /= p.kept_shape[d];
    base += c * p.kept_stride[d];
    if (uint(d) == p.channel_dim) channel = c;
  }
  return base;
}

// Writes element r of the kept coordinate at `base`, normalized.
void write(uint base, uint channel, uint r, float mean, float inv) {
  uint at = base + reduced_offset(r);
  uint k = CHANNEL ? channel : r;
  float v = (x[at] - mean) * inv;
  if (HAS_SCALE) v *= scale[k];
  if (HAS_BIAS) v += bias[k];
  y[at] = v;
}

void serial() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint g = gl_GlobalInvocationID.x; g < p.groups; g += stride) {
    uint channel;
    uint base = kept_base(g, channel);
    float sum = 0.0;
    for (uint r = 0u; r < p.reduced; ++r) sum += x[base + reduced_offset(r)];
    float mean = sum / float(p.reduced);
    float squares = 0.0;
    for (uint r = 0u; r < p.reduced; ++r) {
      float v = x[base + reduced_offset(r)] - mean;
      squares += v * v;
    }
    float inv = 1.0 / sqrt(squares / float(p.reduced) + p.epsilon);
    for (uint r = 0u; r < p.reduced; ++r) write(base, channel, r, mean, inv);
  }
}

void main() {
  if (SERIAL) {
    serial();
    return;
  }
  uint t = gl_LocalInvocationID.x;
  for (uint g = gl_WorkGroupID.x; g < p.groups; g += gl_NumWorkGroups.x) {
    uint channel;
    uint base = kept_base(g, channel);
    float sum = 0.0;
    for (uint r = t; r < p.reduced; r += SIZE) sum += x[base + reduced_offset(r)];
    float mean = group_combine(sum, false) / float(p.reduced);
    float squares = 0.0;
    for (uint r = t; r < p.reduced; r += SIZE) {
      float v = x[base + reduced_offset(r)] - mean;
      squares += v * v;
    }
    float inv = 1.0 / sqrt(group_combine(squares, false) / float(p.reduced) +
                           p.epsilon);
    for (uint r = t; r < p.reduced; r += SIZE) write(base, channel, r, mean, inv);
  }
}
