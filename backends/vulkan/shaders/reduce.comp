// Reductions over any set of axes, of float32 (TYPE 0) or of int32, uint32,
// int64 and uint64 (TYPE 1..4: wrapping as on the CPU; 64-bit values as
// (low, high) word pairs, combined through shared memory only). The kept and the reduced
// dimensions each come with their input strides. OP: the reduction
// (numbered as in backends/vulkan/kernels/reduce.cc).
//
// Two shapes of work: SERIAL, one invocation per output folding its few
// elements in order (many outputs, short reductions); otherwise one
// workgroup per output (grid-stride over the outputs), each invocation
// folding a strided share, then the shares combined — through subgroup
// operations and one shared-memory slot per subgroup when built with
// SUBGROUP=1, else through a tree in shared memory.
// variants: subgroup
#version 450
#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#extension GL_GOOGLE_include_directive : require
#define SIZE 256
layout(local_size_x = SIZE) in;
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint TYPE = 0;
layout(constant_id = 2) const bool SERIAL = false;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint outputs;
  uint reduced;  // elements folded into each output
  // Each at most 6 (kReduceGroupRank, shaders.h): the planner folds
  // neighbouring dimensions of a group first.
  uint kept_rank, reduced_rank;
  uint kept_shape[6];
  uint kept_stride[6];
  uint reduced_shape[6];
  uint reduced_stride[6];
} p;

shared uvec2 part[SIZE];

#include "int64.glsl"

// Values travel as their 32 bits: float32 through uintBitsToFloat.
// OP: 0 sum, 1 mean, 2 max, 3 min, 4 product, 5 L1, 6 L2, 7 logSum,
// 8 logSumExp, 9 sumSquare (integers: 0, 2, 3, 4, 5, 9).
uvec2 initial() {
  if (TYPE == 0u) {
    if (OP == 2u) return uvec2(0xff800000u, 0u);  // -inf
    if (OP == 3u) return uvec2(0x7f800000u, 0u);  // +inf
    if (OP == 4u) return uvec2(floatBitsToUint(1.0), 0u);
    return uvec2(0u);
  }
  if (TYPE >= 3u) {
    if (OP == 2u) return TYPE == 3u ? uvec2(0u, 0x80000000u) : uvec2(0u);
    if (OP == 3u) return TYPE == 3u ? uvec2(0xffffffffu, 0x7fffffffu) : uvec2(0xffffffffu);
    if (OP == 4u) return uvec2(1u, 0u);
    return uvec2(0u);
  }
  if (OP == 2u) return uvec2(TYPE == 1u ? 0x80000000u : 0u, 0u);
  if (OP == 3u) return uvec2(TYPE == 1u ? 0x7fffffffu : 0xffffffffu, 0u);
  if (OP == 4u) return uvec2(1u, 0u);
  return uvec2(0u);
}

uint fold32(uint a, uint b) {
  if (TYPE == 0u) {
    float fa = uintBitsToFloat(a), fb = uintBitsToFloat(b), r;
    if (OP == 2u) r = (isnan(fa) || isnan(fb)) ? fa + fb : max(fa, fb);
    else if (OP == 3u) r = (isnan(fa) || isnan(fb)) ? fa + fb : min(fa, fb);
    else if (OP == 4u) r = fa * fb;
    else r = fa + fb;
    return floatBitsToUint(r);
  }
  if (OP == 2u) return TYPE == 1u ? uint(max(int(a), int(b))) : max(a, b);
  if (OP == 3u) return TYPE == 1u ? uint(min(int(a), int(b))) : min(a, b);
  if (OP == 4u) return a * b;  // the low 32 bits, signed or not
  return a + b;
}

uvec2 fold(uvec2 a, uvec2 b) {
  if (TYPE < 3u) return uvec2(fold32(a.x, b.x), 0u);
  bool signed_ = TYPE == 3u;
  if (OP == 2u) return less64(a, b, signed_) ? b : a;
  if (OP == 3u) return less64(b, a, signed_) ? b : a;
  if (OP == 4u) return mul64(a, b);
  return add64(a, b);
}

// What element v contributes (`shift`: logSumExp's maximum).
uvec2 element(uvec2 v, float shift) {
  if (TYPE == 0u) {
    float f = uintBitsToFloat(v.x);
    if (OP == 5u) f = abs(f);
    else if (OP == 6u || OP == 9u) f = f * f;
    else if (OP == 8u) f = exp(f - shift);
    return uvec2(floatBitsToUint(f), 0u);
  }
  if (TYPE >= 3u) {
    if (OP == 5u && TYPE == 3u && negative64(v)) return neg64(v);
    if (OP == 9u) return mul64(v, v);
    return v;
  }
  if (OP == 5u && TYPE == 1u) return uvec2(int(v.x) < 0 ? 0u - v.x : v.x, 0u);
  if (OP == 9u) return uvec2(v.x * v.x, 0u);
  return v;
}

uvec2 finish(uvec2 total) {
  if (TYPE != 0u) return total;
  float t = uintBitsToFloat(total.x);
  if (OP == 1u) t /= float(p.reduced);
  if (OP == 6u) t = sqrt(t);
  if (OP == 7u) t = log(t);
  return uvec2(floatBitsToUint(t), 0u);
}

uvec2 load(uint i) {
  return TYPE >= 3u ? uvec2(x[2u * i], x[2u * i + 1u]) : uvec2(x[i], 0u);
}

void store(uint o, uvec2 v) {
  if (TYPE >= 3u) {
    y[2u * o] = v.x;
    y[2u * o + 1u] = v.y;
  } else {
    y[o] = v.x;
  }
}

#ifdef SUBGROUP
// Folds v over the subgroup's active invocations.
uint subgroup_fold(uint v, bool maximum_only) {
  uint op = maximum_only ? 2u : OP;
  if (TYPE == 0u) {
    float f = uintBitsToFloat(v);
    if (op == 2u || op == 3u) {
      // Any NaN wins, as in fold(); subgroupMax/Min leave NaN undefined.
      if (subgroupAny(isnan(f))) return floatBitsToUint(uintBitsToFloat(0x7fc00000u));
      return floatBitsToUint(op == 2u ? subgroupMax(f) : subgroupMin(f));
    }
    return floatBitsToUint(op == 4u ? subgroupMul(f) : subgroupAdd(f));
  }
  if (TYPE == 1u) {
    int i = int(v);
    if (op == 2u) return uint(subgroupMax(i));
    if (op == 3u) return uint(subgroupMin(i));
    return uint(op == 4u ? subgroupMul(i) : subgroupAdd(i));
  }
  if (op == 2u) return subgroupMax(v);
  if (op == 3u) return subgroupMin(v);
  return op == 4u ? subgroupMul(v) : subgroupAdd(v);
}
#endif

uvec2 fold_any(uvec2 a, uvec2 b, bool maximum_only) {
  if (!maximum_only) return fold(a, b);
  float fa = uintBitsToFloat(a.x), fb = uintBitsToFloat(b.x);
  return uvec2(floatBitsToUint(max(fa, fb)), 0u);
}

// Combines every invocation's `mine` (fold, or the float maximum when
// `maximum_only`); every invocation gets the result.
uvec2 reduce_group(uvec2 mine, bool maximum_only) {
  uint t = gl_LocalInvocationID.x;
  uvec2 result;
#ifdef SUBGROUP
  if (TYPE < 3u) {
    uint folded = subgroup_fold(mine.x, maximum_only);
    if (subgroupElect()) part[gl_SubgroupID] = uvec2(folded, 0u);
    // Each subgroup's result is in shared memory before the first one
    // reads them.
    barrier();
    if (gl_SubgroupID == 0u) {
      uvec2 v = maximum_only ? uvec2(0xff800000u, 0u) : initial();
      for (uint s = gl_SubgroupInvocationID; s < gl_NumSubgroups;
           s += gl_SubgroupSize) {
        v = fold_any(v, part[s], maximum_only);
      }
      uint total = subgroup_fold(v.x, maximum_only);
      if (subgroupElect()) part[SIZE - 1u] = uvec2(total, 0u);
    }
    // The total is in shared memory before anyone reads it.
    barrier();
    result = part[SIZE - 1u];
    // Everyone has read the result before part[] is reused.
    barrier();
    return result;
  }
#endif
  part[t] = mine;
  // Every share is in shared memory before the tree reads it.
  barrier();
  for (uint s = SIZE / 2u; s > 0u; s >>= 1) {
    if (t < s) part[t] = fold_any(part[t], part[t + s], maximum_only);
    // Each level is complete before the next one reads it.
    barrier();
  }
  result = part[0];
  // Everyone has read the result before part[] is reused.
  barrier();
  return result;
}

uint reduced_offset(uint r) {
  uint offset = 0u;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    offset += (r % p.reduced_shape[d]) * p.reduced_stride[d];
    r /= p.reduced_shape[d];
  }
  return offset;
}

uint kept_offset(uint o) {
  uint base = 0u;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    base += (o % p.kept_shape[d]) * p.kept_stride[d];
    o /= p.kept_shape[d];
  }
  return base;
}

void serial() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint o = gl_GlobalInvocationID.x; o < p.outputs; o += stride) {
    uint base = kept_offset(o);
    float shift = 0.0;
    if (OP == 8u) {  // logSumExp: the maximum first, for stability
      shift = uintBitsToFloat(0xff800000u);
      for (uint r = 0u; r < p.reduced; ++r) {
        shift = max(shift, uintBitsToFloat(x[base + reduced_offset(r)]));
      }
      if (isinf(shift)) shift = 0.0;
    }
    uvec2 acc = initial();
    for (uint r = 0u; r < p.reduced; ++r) {
      acc = fold(acc, element(load(base + reduced_offset(r)), shift));
    }
    if (OP == 8u) {
      y[o] = floatBitsToUint(log(uintBitsToFloat(acc.x)) + shift);
    } else {
      store(o, finish(acc));
    }
  }
}

void main() {
  if (SERIAL) {
    serial();
    return;
  }
  for (uint o = gl_WorkGroupID.x; o < p.outputs; o += gl_NumWorkGroups.x) {
    uint base = kept_offset(o);
    float shift = 0.0;
    if (OP == 8u) {  // logSumExp: the maximum first, for stability
      float m = uintBitsToFloat(0xff800000u);
      for (uint r = gl_LocalInvocationID.x; r < p.reduced; r += SIZE) {
        m = max(m, uintBitsToFloat(x[base + reduced_offset(r)]));
      }
      shift = uintBitsToFloat(
          reduce_group(uvec2(floatBitsToUint(m), 0u), true).x);
      if (isinf(shift)) shift = 0.0;
    }
    uvec2 acc = initial();
    for (uint r = gl_LocalInvocationID.x; r < p.reduced; r += SIZE) {
      acc = fold(acc, element(load(base + reduced_offset(r)), shift));
    }
    uvec2 total = reduce_group(acc, false);
    if (gl_LocalInvocationID.x == 0u) {
      if (OP == 8u) {
        y[o] = floatBitsToUint(log(uintBitsToFloat(total.x)) + shift);
      } else {
        store(o, finish(total));
      }
    }
  }
}
