// argMax and argMin along one axis, the input seen as [outer, length,
// inner]: one invocation per result scans its line (the axis is short in
// practice: classes, channels), keeping the first index of the best value;
// for float32 a NaN beats any number (the first NaN wins), as on the CPU.
// TYPE: 0 float32, 1 int32, 2 uint32, 3 int64, 4 uint64 (64-bit values as
// (low, high) word pairs). Results are int32, or int64 as (index, 0) pairs.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool MAX = true;
layout(constant_id = 1) const bool OUT64 = false;
layout(constant_id = 2) const uint TYPE = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint outputs;  // outer · inner
  uint len;
  uint inner;
} p;

// Whether a is below b (integers; 64-bit ones compare their high words,
// signed or not, then their low words unsigned).
bool below(uvec2 a, uvec2 b) {
  if (TYPE == 1u) return int(a.x) < int(b.x);
  if (TYPE == 2u) return a.x < b.x;
  if (a.y != b.y) return TYPE == 3u ? int(a.y) < int(b.y) : a.y < b.y;
  return a.x < b.x;
}

uvec2 value(uint i) {
  return TYPE >= 3u ? uvec2(x[2u * i], x[2u * i + 1u]) : uvec2(x[i], 0u);
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < p.outputs; o += stride) {
    uint base = (o / p.inner) * p.len * p.inner + o % p.inner;
    uvec2 best = value(base);
    uint at = 0u;
    for (uint k = 1u; k < p.len; ++k) {
      uvec2 v = value(base + k * p.inner);
      bool better;
      if (TYPE == 0u) {
        float fv = uintBitsToFloat(v.x), fb = uintBitsToFloat(best.x);
        better = (MAX ? fv > fb : fv < fb) || (isnan(fv) && !isnan(fb));
      } else {
        better = MAX ? below(best, v) : below(v, best);
      }
      if (better) {
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
