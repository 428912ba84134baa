// 64-bit integer arithmetic on (low, high) word pairs, without 64-bit
// shader features: wrapping as two's complement, as the CPU's int64_t and
// uint64_t do.

uvec2 add64(uvec2 a, uvec2 b) {
  uint carry;
  uint low = uaddCarry(a.x, b.x, carry);
  return uvec2(low, a.y + b.y + carry);
}

uvec2 sub64(uvec2 a, uvec2 b) {
  uint borrow;
  uint low = usubBorrow(a.x, b.x, borrow);
  return uvec2(low, a.y - b.y - borrow);
}

uvec2 neg64(uvec2 a) { return sub64(uvec2(0u), a); }

bool negative64(uvec2 a) { return (a.y & 0x80000000u) != 0u; }

// The low 64 bits of a · b (the same for signed and unsigned).
uvec2 mul64(uvec2 a, uvec2 b) {
  uint high, low;
  umulExtended(a.x, b.x, high, low);
  return uvec2(low, high + a.x * b.y + a.y * b.x);
}

bool less64(uvec2 a, uvec2 b, bool signed_) {
  if (a.y != b.y) return signed_ ? int(a.y) < int(b.y) : a.y < b.y;
  return a.x < b.x;
}

// Unsigned a / b for b != 0, by shift and subtract.
uvec2 udiv64(uvec2 a, uvec2 b) {
  uvec2 q = uvec2(0u), r = uvec2(0u);
  for (int bit = 63; bit >= 0; --bit) {
    r = uvec2(r.x << 1, (r.y << 1) | (r.x >> 31));
    uint word = bit >= 32 ? a.y : a.x;
    r.x |= (word >> uint(bit & 31)) & 1u;
    if (!less64(r, b, false)) {
      r = sub64(r, b);
      if (bit >= 32) q.y |= 1u << uint(bit - 32);
      else q.x |= 1u << uint(bit);
    }
  }
  return q;
}

// a / b truncated; x / 0 = 0 and INT64_MIN / -1 = INT64_MIN, as on the CPU.
uvec2 div64(uvec2 a, uvec2 b, bool signed_) {
  if (b == uvec2(0u)) return uvec2(0u);
  if (!signed_) return udiv64(a, b);
  bool na = negative64(a), nb = negative64(b);
  if (a == uvec2(0u, 0x80000000u) && b == uvec2(0xffffffffu)) return a;
  uvec2 q = udiv64(na ? neg64(a) : a, nb ? neg64(b) : b);
  return na != nb ? neg64(q) : q;
}

// a^b by squaring, wrapping; a negative exponent gives 0 except for the
// bases 1 and -1, as on the CPU.
uvec2 pow64(uvec2 a, uvec2 b, bool signed_) {
  if (signed_ && negative64(b)) {
    if (a == uvec2(1u, 0u)) return a;
    if (a == uvec2(0xffffffffu)) return (b.x & 1u) != 0u ? a : uvec2(1u, 0u);
    return uvec2(0u);
  }
  uvec2 result = uvec2(1u, 0u), base = a;
  for (int bit = 0; bit < 64; ++bit) {
    uint word = bit >= 32 ? b.y : b.x;
    if (((word >> uint(bit & 31)) & 1u) != 0u) result = mul64(result, base);
    base = mul64(base, base);
  }
  return result;
}
