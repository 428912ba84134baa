// Shared by the gather and scatter shaders: index element k of `idx` (a
// buffer of 32-bit words named `idx`) read as INDEX (0 int32, 1 uint32,
// 2 int64, 3 uint64), counted from the end when negative and clamped into
// [0, size), as on the CPU, so nothing is read or written out of bounds
// whatever the index data.
uint clamped_index(uint k, uint size) {
  int n = int(size);
  if (INDEX == 1u) return min(idx[k], size - 1u);
  int v;
  if (INDEX == 0u) {
    v = int(idx[k]);
  } else {
    uint lo = idx[2u * k], hi = idx[2u * k + 1u];
    if (INDEX == 3u || (hi & 0x80000000u) == 0u) {  // non-negative
      return hi != 0u ? size - 1u : min(lo, size - 1u);
    }
    // Negative: counts from the end when it fits in 32 bits.
    if (hi != 0xffffffffu || lo < 0x80000000u) return 0u;
    v = int(lo);
  }
  if (v < 0) v += n;
  return uint(clamp(v, 0, n - 1));
}
