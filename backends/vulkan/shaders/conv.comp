// conv2d and convTranspose2d (TRANSPOSED) of float32 images in nchw or
// nhwc, with any WebNN filter layout (its four strides), groups, padding,
// strides and dilations, and an optional bias. One invocation per result
// element, summing over its input channels and filter taps; a transposed
// convolution gathers the inputs whose strided window reaches the result.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool TRANSPOSED = false;
layout(constant_id = 1) const bool HAS_BIAS = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer F { float f[]; };
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uint N, C, H, W;   // input
  uint O, OH, OW;    // output channels and size
  uint KH, KW, groups;
  int sh, sw, dh, dw, pt, pl;
  uint f_o, f_i, f_h, f_w;  // the filter's strides
  uint nhwc;
} p;

uint at(uint n, uint c, uint h, uint w, uint Cn, uint Hn, uint Wn) {
  return p.nhwc != 0u ? ((n * Hn + h) * Wn + w) * Cn + c
                      : ((n * Cn + c) * Hn + h) * Wn + w;
}

void main() {
  uint total = p.N * p.O * p.OH * p.OW;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint ig = p.C / p.groups, og = p.O / p.groups;
  for (uint e = gl_GlobalInvocationID.x; e < total; e += stride) {
    // The result's coordinates, in its layout's order.
    uint n, oc, oy, ox, rest = e;
    if (p.nhwc != 0u) {
      oc = rest % p.O; rest /= p.O;
      ox = rest % p.OW; rest /= p.OW;
      oy = rest % p.OH; n = rest / p.OH;
    } else {
      ox = rest % p.OW; rest /= p.OW;
      oy = rest % p.OH; rest /= p.OH;
      oc = rest % p.O; n = rest / p.O;
    }
    uint group = oc / og;
    float sum = HAS_BIAS ? bias[oc] : 0.0;
    for (uint i = 0u; i < ig; ++i) {
      uint c = group * ig + i;
      for (uint ky = 0u; ky < p.KH; ++ky) {
        int iy;
        if (TRANSPOSED) {
          int t = int(oy) + p.pt - int(ky) * p.dh;
          if (t < 0 || t % p.sh != 0) continue;
          iy = t / p.sh;
        } else {
          iy = int(oy) * p.sh + int(ky) * p.dh - p.pt;
        }
        if (iy < 0 || iy >= int(p.H)) continue;
        for (uint kx = 0u; kx < p.KW; ++kx) {
          int ix;
          if (TRANSPOSED) {
            int t = int(ox) + p.pl - int(kx) * p.dw;
            if (t < 0 || t % p.sw != 0) continue;
            ix = t / p.sw;
          } else {
            ix = int(ox) * p.sw + int(kx) * p.dw - p.pl;
          }
          if (ix < 0 || ix >= int(p.W)) continue;
          uint tap = ky * p.f_h + kx * p.f_w +
                     (TRANSPOSED ? c * p.f_i + (oc % og) * p.f_o
                                 : oc * p.f_o + i * p.f_i);
          sum += x[at(n, c, uint(iy), uint(ix), p.C, p.H, p.W)] * f[tap];
        }
      }
    }
    y[e] = sum;
  }
}
