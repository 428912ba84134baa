// Copies of 32-bit elements (WORDS 1) or 64-bit ones (WORDS 2: two words)
// where each result coordinate maps to an input coordinate (bits copied:
// any such type). MODE 0 tile: c mod the input's
// size. MODE 1 pad: c - begin, outside the input `value` (PAD 0: constant),
// the nearest edge (PAD 1) or the mirror image without the edge (PAD 2:
// reflection). MODE 2 triangular: the same coordinate, zero outside the
// kept triangle of the last two dimensions.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint MODE = 0;
layout(constant_id = 1) const uint PAD = 0;
layout(constant_id = 2) const uint WORDS = 1;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 8: kStridedRank (shaders.h)
  uint out_shape[8];
  uint in_shape[8];
  int begin[8];
  uint value;  // pad: the constant's bits (the low word of 64)
  uint upper;  // triangular
  int diagonal;
  uint value_high;  // pad, WORDS 2: the constant's high word
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < p.n; e += stride) {
    uint rest = e, src = 0u, scale = 1u;
    bool outside = false;
    int row = 0, col = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      int c = int(rest % p.out_shape[d]);
      rest /= p.out_shape[d];
      int size = int(p.in_shape[d]);
      if (MODE == 0u) {
        c = c % size;
      } else if (MODE == 1u) {
        c -= p.begin[d];
        if (c < 0 || c >= size) {
          if (PAD == 0u) outside = true;
          else if (PAD == 1u) c = clamp(c, 0, size - 1);
          else c = c < 0 ? -c : 2 * (size - 1) - c;
        }
      } else {
        if (d == int(p.rank) - 1) col = c;
        if (d == int(p.rank) - 2) row = c;
      }
      src += uint(max(c, 0)) * scale;
      scale *= uint(size);
    }
    bool zero = false;
    if (MODE == 2u) {
      zero = p.upper != 0u ? col - row < p.diagonal : col - row > p.diagonal;
    }
    for (uint w = 0u; w < WORDS; ++w) {
      uint constant = w == 0u ? p.value : p.value_high;
      y[e * WORDS + w] = zero ? 0u : outside ? constant : x[src * WORDS + w];
    }
  }
}
