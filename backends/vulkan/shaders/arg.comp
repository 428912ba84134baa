// argMax and argMin of float32 along one axis, the input seen as
// [outer, length, inner]: one invocation per result scans its line (the
// axis is short in practice: classes, channels), keeping the first index
// of the best value; a NaN beats any number (the first NaN wins), as on
// the CPU. Results are int32, or int64 as (index, 0) word pairs.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool MAX = true;
layout(constant_id = 1) const bool OUT64 = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint outputs;  // outer · inner
  uint len;
  uint inner;
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < p.outputs; o += stride) {
    uint base = (o / p.inner) * p.len * p.inner + o % p.inner;
    float best = x[base];
    uint at = 0u;
    for (uint k = 1u; k < p.len; ++k) {
      float v = x[base + k * p.inner];
      bool better = MAX ? v > best : v < best;
      if (better || (isnan(v) && !isnan(best))) {
        best = v;
        at = k;
      }
    }
    if (OUT64) {
      y[2u * o] = at;
      y[2u * o + 1u] = 0u;
    } else {
      y[o] = at;
    }
  }
}
