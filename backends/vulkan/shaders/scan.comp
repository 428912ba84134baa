// cumulativeSum along one axis: the input seen as [outer, L, inner], one
// invocation per line summing serially (as each element depends on the one
// before), from the high index down when REVERSED, each total without its
// own element when EXCLUSIVE. TYPE: 0 float32, 1 int32/uint32 (wrapping),
// 2 int64/uint64 ((low, high) word pairs, wrapping, with a carry).
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool EXCLUSIVE = false;
layout(constant_id = 1) const bool REVERSED = false;
layout(constant_id = 2) const uint TYPE = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint lines;  // outer · inner
  uint len;
  uint inner;
} p;

uvec2 load(uint i) {
  return TYPE == 2u ? uvec2(x[2u * i], x[2u * i + 1u]) : uvec2(x[i], 0u);
}

void store(uint i, uvec2 v) {
  if (TYPE == 2u) {
    y[2u * i] = v.x;
    y[2u * i + 1u] = v.y;
  } else {
    y[i] = v.x;
  }
}

uvec2 add(uvec2 a, uvec2 b) {
  if (TYPE == 0u) {
    return uvec2(floatBitsToUint(uintBitsToFloat(a.x) + uintBitsToFloat(b.x)), 0u);
  }
  uint carry;
  uint low = uaddCarry(a.x, b.x, carry);
  return uvec2(low, a.y + b.y + carry);
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint line = gl_GlobalInvocationID.x; line < p.lines; line += stride) {
    uint base = (line / p.inner) * p.len * p.inner + line % p.inner;
    uvec2 sum = uvec2(0u);
    for (uint k = 0u; k < p.len; ++k) {
      uint i = base + (REVERSED ? p.len - 1u - k : k) * p.inner;
      uvec2 v = load(i);
      if (EXCLUSIVE) {
        store(i, sum);
        sum = add(sum, v);
      } else {
        sum = add(sum, v);
        store(i, sum);
      }
    }
  }
}
