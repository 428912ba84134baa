// Operations with uint8 results (comparisons, isNaN, isInfinite, logical
// operations), with broadcasting. uint8 tensors are read and written as
// 32-bit words holding four elements, so no 8-bit storage feature is
// needed: each invocation computes the four elements of one result word
// (the bytes past the end of a tensor are padding the executable keeps).
// KIND: what the operands are: 0 float32, 1 int32, 2 uint32, 3 uint8
// (logical operations), 4 int64, 5 uint64 ((low, high) word pairs).
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint KIND = 0;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer Z { uint z[]; };
layout(push_constant) uniform Push {
  uint n;
  uint rank;  // at most 8: kStridedRank (shaders.h)
  uint shape[8];
  uint stride_a[8];
  uint stride_b[8];
} p;

uint byte_a(uint i) { return (a[i >> 2] >> ((i & 3u) * 8u)) & 0xffu; }
uint byte_b(uint i) { return (b[i >> 2] >> ((i & 3u) * 8u)) & 0xffu; }

// 0 equal, 1 notEqual, 2 greater, 3 greaterOrEqual, 4 lesser,
// 5 lesserOrEqual, 6 isNaN, 7 isInfinite, 8 logicalAnd, 9 logicalOr,
// 10 logicalXor, 11 logicalNot.
bool compare(int order, bool unordered) {
  switch (OP) {
    case 0: return !unordered && order == 0;
    case 1: return unordered || order != 0;
    case 2: return !unordered && order > 0;
    case 3: return !unordered && order >= 0;
    case 4: return !unordered && order < 0;
    default: return !unordered && order <= 0;
  }
}

bool apply(uint ia, uint ib) {
  if (KIND == 3u) {
    bool u = byte_a(ia) != 0u, v = byte_b(ib) != 0u;
    switch (OP) {
      case 8: return u && v;
      case 9: return u || v;
      case 10: return u != v;
      default: return !u;
    }
  }
  if (KIND >= 4u) {
    uvec2 u = uvec2(a[2u * ia], a[2u * ia + 1u]);
    uvec2 v = uvec2(b[2u * ib], b[2u * ib + 1u]);
    bool below = u.y != v.y ? (KIND == 4u ? int(u.y) < int(v.y) : u.y < v.y)
                            : u.x < v.x;
    return compare(u == v ? 0 : below ? -1 : 1, false);
  }
  if (KIND == 1u) {
    int u = int(a[ia]), v = int(b[ib]);
    return compare(u < v ? -1 : u > v ? 1 : 0, false);
  }
  if (KIND == 2u) {
    uint u = a[ia], v = b[ib];
    return compare(u < v ? -1 : u > v ? 1 : 0, false);
  }
  float u = uintBitsToFloat(a[ia]), v = uintBitsToFloat(b[ib]);
  if (OP == 6) return isnan(u);
  if (OP == 7) return isinf(u);
  return compare(u < v ? -1 : u > v ? 1 : 0, isnan(u) || isnan(v));
}

void main() {
  uint words = (p.n + 3u) / 4u;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint w = gl_GlobalInvocationID.x; w < words; w += stride) {
    uint packed = 0u;
    for (uint j = 0u; j < 4u; ++j) {
      uint i = w * 4u + j;
      if (i >= p.n) break;
      uint rest = i, ia = 0u, ib = 0u;
      for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint c = rest % p.shape[d];
        rest /= p.shape[d];
        ia += c * p.stride_a[d];
        ib += c * p.stride_b[d];
      }
      if (apply(ia, ib)) packed |= 1u << (j * 8u);
    }
    z[w] = packed;
  }
}
