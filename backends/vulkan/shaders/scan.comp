// cumulativeSum of float32 along one axis: the input seen as [outer, L,
// inner], one invocation per line summing serially (in float, as each
// element depends on the one before), from the high index down when
// REVERSED, each total without its own element when EXCLUSIVE.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool EXCLUSIVE = false;
layout(constant_id = 1) const bool REVERSED = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint lines;  // outer · inner
  uint len;
  uint inner;
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint line = gl_GlobalInvocationID.x; line < p.lines; line += stride) {
    uint base = (line / p.inner) * p.len * p.inner + line % p.inner;
    float sum = 0.0;
    for (uint k = 0u; k < p.len; ++k) {
      uint i = base + (REVERSED ? p.len - 1u - k : k) * p.inner;
      float v = x[i];
      if (EXCLUSIVE) {
        y[i] = sum;
        sum += v;
      } else {
        sum += v;
        y[i] = sum;
      }
    }
  }
}
