// averagePool2d, maxPool2d and l2Pool2d (OP 0, 1, 2) of float32 images in
// nchw or nhwc, with padding, strides and dilations. One invocation per
// result element over its window's taps inside the input: the average
// counts only those (padding excluded), a window with none gives 0
// (average, l2) or -infinity (max); max propagates NaN. Max pooling also
// takes int32 and uint32 (TYPE 1, 2), an empty window giving LOWEST.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint OP = 0;
layout(constant_id = 1) const uint TYPE = 0;
layout(constant_id = 2) const uint LOWEST = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint N, C, H, W, OH, OW, KH, KW;
  int sh, sw, dh, dw, pt, pl;
  uint nhwc;
} p;

void main() {
  uint total = p.N * p.C * p.OH * p.OW;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < total; e += stride) {
    uint n, c, oy, ox, rest = e;
    if (p.nhwc != 0u) {
      c = rest % p.C; rest /= p.C;
      ox = rest % p.OW; rest /= p.OW;
      oy = rest % p.OH; n = rest / p.OH;
    } else {
      ox = rest % p.OW; rest /= p.OW;
      oy = rest % p.OH; rest /= p.OH;
      c = rest % p.C; n = rest / p.C;
    }
    float acc = OP == 1u ? uintBitsToFloat(0xff800000u) : 0.0;
    uint best = LOWEST;  // integers
    uint count = 0u;
    for (uint ky = 0u; ky < p.KH; ++ky) {
      int iy = int(oy) * p.sh + int(ky) * p.dh - p.pt;
      if (iy < 0 || iy >= int(p.H)) continue;
      for (uint kx = 0u; kx < p.KW; ++kx) {
        int ix = int(ox) * p.sw + int(kx) * p.dw - p.pl;
        if (ix < 0 || ix >= int(p.W)) continue;
        uint i = p.nhwc != 0u
                     ? ((n * p.H + uint(iy)) * p.W + uint(ix)) * p.C + c
                     : ((n * p.C + c) * p.H + uint(iy)) * p.W + uint(ix);
        if (TYPE == 1u) {
          best = uint(max(int(best), int(x[i])));
          continue;
        }
        if (TYPE == 2u) {
          best = max(best, x[i]);
          continue;
        }
        float v = uintBitsToFloat(x[i]);
        if (OP == 1u) {
          acc = (isnan(v) || isnan(acc)) ? acc + v : max(acc, v);
        } else {
          acc += OP == 2u ? v * v : v;
        }
        ++count;
      }
    }
    if (OP == 0u) acc = count == 0u ? 0.0 : acc / float(count);
    if (OP == 2u) acc = sqrt(acc);
    y[e] = TYPE == 0u ? floatBitsToUint(acc) : best;
  }
}
