// A workgroup's sum or maximum of one float per invocation, for shaders of
// SIZE invocations that declare `shared float part[SIZE];` and call it in
// uniform control flow; every invocation gets the result. Built with
// SUBGROUP (the shader's subgroup variant): subgroup operations, one slot
// per subgroup in shared memory, then the first subgroup combines the
// slots. Otherwise a tree in shared memory.
#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

float group_combine(float mine, bool maximum) {
#ifdef SUBGROUP
  float folded = maximum ? subgroupMax(mine) : subgroupAdd(mine);
  if (subgroupElect()) part[gl_SubgroupID] = folded;
  // Each subgroup's result is in shared memory before the first reads it.
  barrier();
  if (gl_SubgroupID == 0u) {
    float v = maximum ? uintBitsToFloat(0xff800000u) : 0.0;
    for (uint s = gl_SubgroupInvocationID; s < gl_NumSubgroups;
         s += gl_SubgroupSize) {
      v = maximum ? max(v, part[s]) : v + part[s];
    }
    v = maximum ? subgroupMax(v) : subgroupAdd(v);
    if (subgroupElect()) part[SIZE - 1u] = v;
  }
  // The total is in shared memory before anyone reads it.
  barrier();
  float result = part[SIZE - 1u];
#else
  uint t = gl_LocalInvocationID.x;
  part[t] = mine;
  // Every share is in shared memory before the tree reads it.
  barrier();
  for (uint s = SIZE / 2u; s > 0u; s >>= 1) {
    if (t < s) part[t] = maximum ? max(part[t], part[t + s]) : part[t] + part[t + s];
    // Each level is complete before the next one reads it.
    barrier();
  }
  float result = part[0];
#endif
  // Everyone has read the result before part[] is reused.
  barrier();
  return result;
}
