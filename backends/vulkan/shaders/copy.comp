// A strided copy of 32-bit elements: y[out_base + Σ c_d·out_stride_d] =
// x[in_base + Σ c_d·in_stride_d] over every coordinate c of `shape`.
// Serves reshape, identity, transpose, expand (stride 0), slice (offset and
// strides), reverse (negative strides), concat and split (a sub-range of
// the output or the input). Bits are copied, so any 32-bit type works.
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 9: kCopyRank (shaders.h)
  int in_base;
  int out_base;
  uint shape[9];
  int in_stride[9];
  int out_stride[9];
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
    uint rest = i;
    int src = p.in_base, dst = p.out_base;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      int c = int(rest % p.shape[d]);
      rest /= p.shape[d];
      src += c * p.in_stride[d];
      dst += c * p.out_stride[d];
    }
    y[dst] = x[src];
  }
}
