// Reductions of float32 over any set of axes: one workgroup per output
// element (grid-stride over the outputs), each invocation folding a strided
// share of the reduced elements, then a tree in shared memory. The kept
// and the reduced dimensions each come with their input strides. OP: the
// reduction (numbered as in backends/vulkan/kernels/reduce.cc).
#version 450
#define SIZE 256
layout(local_size_x = SIZE) in;
layout(constant_id = 0) const uint OP = 0;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint outputs;
  uint reduced;  // elements folded into each output
  uint kept_rank, reduced_rank;  // each at most 6
  uint kept_shape[6];
  uint kept_stride[6];
  uint reduced_shape[6];
  uint reduced_stride[6];
} p;

shared float part[SIZE];

// 0 sum, 1 mean, 2 max, 3 min, 4 product, 5 L1, 6 L2, 7 logSum,
// 8 logSumExp, 9 sumSquare.
float initial() {
  if (OP == 2) return uintBitsToFloat(0xff800000u);
  if (OP == 3) return uintBitsToFloat(0x7f800000u);
  if (OP == 4) return 1.0;
  return 0.0;
}

float fold(float acc, float v) {
  if (OP == 2) return (isnan(v) || isnan(acc)) ? acc + v : max(acc, v);
  if (OP == 3) return (isnan(v) || isnan(acc)) ? acc + v : min(acc, v);
  if (OP == 4) return acc * v;
  return acc + v;
}

float element(float v, float shift) {
  if (OP == 5) return abs(v);
  if (OP == 6 || OP == 9) return v * v;
  if (OP == 8) return exp(v - shift);
  return v;
}

float reduce_group(float mine) {
  uint t = gl_LocalInvocationID.x;
  part[t] = mine;
  // Every share is in shared memory before the tree reads it.
  barrier();
  for (uint s = SIZE / 2; s > 0; s >>= 1) {
    if (t < s) part[t] = fold(part[t], part[t + s]);
    // Each level is complete before the next one reads it.
    barrier();
  }
  float result = part[0];
  // Everyone has read the result before part[] is reused.
  barrier();
  return result;
}

uint reduced_offset(uint r) {
  uint offset = 0;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    offset += (r % p.reduced_shape[d]) * p.reduced_stride[d];
    r /= p.reduced_shape[d];
  }
  return offset;
}

void main() {
  for (uint o = gl_WorkGroupID.x; o < p.outputs; o += gl_NumWorkGroups.x) {
    uint base = 0, rest = o;
    for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
      base += (rest % p.kept_shape[d]) * p.kept_stride[d];
      rest /= p.kept_shape[d];
    }
    float shift = 0.0;
    if (OP == 8) {  // logSumExp: the maximum first, for stability
      float m = uintBitsToFloat(0xff800000u);
      for (uint r = gl_LocalInvocationID.x; r < p.reduced; r += SIZE) {
        m = max(m, x[base + reduced_offset(r)]);
      }
      part[gl_LocalInvocationID.x] = m;
      barrier();
      for (uint s = SIZE / 2; s > 0; s >>= 1) {
        if (gl_LocalInvocationID.x < s) {
          part[gl_LocalInvocationID.x] =
              max(part[gl_LocalInvocationID.x], part[gl_LocalInvocationID.x + s]);
        }
        barrier();
      }
      shift = part[0];
      barrier();
      if (isinf(shift)) shift = 0.0;
    }
    float acc = initial();
    for (uint r = gl_LocalInvocationID.x; r < p.reduced; r += SIZE) {
      acc = fold(acc, element(x[base + reduced_offset(r)], shift));
    }
    float total = reduce_group(acc);
    if (gl_LocalInvocationID.x == 0) {
      if (OP == 1) total /= float(p.reduced);
      if (OP == 6) total = sqrt(total);
      if (OP == 7) total = log(total);
      if (OP == 8) total = log(total) + shift;
      y[o] = total;
    }
  }
}
