// randomUniform: float32 uniform in [0, 1) from Philox4x32-10, the same
// numbers as the CPU backend: element i of stream S on run `step` comes from
// counter (i / 4, 0, S, step) under the run's 64-bit key, both read from
// the executable's random state (written by the host before each run), and
// its 24 high bits scaled by 2^-24. HALF: float16 results, rounded to
// nearest even in integers and kept below 1 (0x3BFF), as the CPU does.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool HALF = false;
layout(std430, binding = 0) readonly buffer State { uint state[]; };  // key lo, key hi, step
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint stream;
} p;

uvec4 philox(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k += uvec2(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

// The float16 bits of m · 2^-24 (m < 2^24), rounded to nearest even.
uint half_bits(uint m) {
  if (m < 1024u) return m;  // a subnormal float16: exact
  int top = findMSB(m);     // 10..23
  uint shift = uint(top - 10);
  uint q = m >> shift, rest = m & ((1u << shift) - 1u);
  uint halfway = shift == 0u ? 0u : 1u << (shift - 1u);
  if (shift != 0u && (rest > halfway || (rest == halfway && (q & 1u) != 0u))) {
    ++q;
  }
  // q carries the implicit leading 1 (and a rounding carry) into the
  // exponent field.
  return (shift << 10) + q;
}

void main() {
  uint blocks = (p.n + 3u) / 4u;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint b = gl_GlobalInvocationID.x; b < blocks; b += stride) {
    uvec4 bits = philox(uvec4(b, 0u, p.stream, state[2]),
                        uvec2(state[0], state[1]));
    if (HALF) {
      // Two words of two float16 values each (the tensor's padding takes
      // the bytes past its end).
      for (uint w = 0u; w < 2u; ++w) {
        uint packed = 0u;
        for (uint j = 0u; j < 2u; ++j) {
          uint h = min(half_bits(bits[2u * w + j] >> 8), 0x3BFFu);
          packed |= h << (16u * j);
        }
        if (b * 4u + 2u * w < p.n) y[b * 2u + w] = packed;
      }
    } else {
      for (uint j = 0u; j < 4u; ++j) {
        uint i = b * 4u + j;
        if (i < p.n) y[i] = floatBitsToUint(float(bits[j] >> 8) * (1.0 / 16777216.0));
      }
    }
  }
}
