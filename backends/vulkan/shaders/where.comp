// where(condition, a, b) with broadcasting: an element of a where the
// uint8 condition is non-zero, else of b (bits copied: any 32-bit type, or
// 64-bit ones as WORDS 2 words each). The condition is read as words
// holding four elements.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint WORDS = 1;
layout(std430, binding = 0) readonly buffer C { uint c[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) writeonly buffer Z { uint z[]; };
// The block is the 128 bytes every device offers (kPushBytesGuaranteed,
// shaders.h), so it has no element count or rank: dimensions past the rank
// are 1 (with stride 0), and the count is the shape's product.
layout(push_constant) uniform Push {
  uint shape[8];  // kStridedRank (shaders.h)
  uint stride_c[8];
  uint stride_a[8];
  uint stride_b[8];
} p;

void main() {
  uint n = 1u;
  for (int d = 0; d < 8; ++d) n *= p.shape[d];
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    uint rest = i, ic = 0u, ia = 0u, ib = 0u;
    for (int d = 7; d >= 0; --d) {
      uint k = rest % p.shape[d];
      rest /= p.shape[d];
      ic += k * p.stride_c[d];
      ia += k * p.stride_a[d];
      ib += k * p.stride_b[d];
    }
    bool yes = ((c[ic >> 2] >> ((ic & 3u) * 8u)) & 0xffu) != 0u;
    for (uint w = 0u; w < WORDS; ++w) {
      z[i * WORDS + w] = yes ? a[ia * WORDS + w] : b[ib * WORDS + w];
    }
  }
}
