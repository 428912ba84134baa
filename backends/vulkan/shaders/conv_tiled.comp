// conv2d and convTranspose2d (TRANSPOSED) as an implicit matrix product,
// for convolutions with at least 16 output channels per group: for each
// image n and group g, Y[oc][pixel] = Σ_k F[oc][k] · X[k][pixel] over
// k = (input channel, ky, kx), where X[k][pixel] is the input element the
// tap reaches from that output pixel (0 in the padding; for a transposed
// convolution, the input whose strided window reaches it). One 16×16 tile
// of Y per workgroup, K walked in 16-wide slices of F and X staged through
// shared memory, so that each element of a slice is read from global
// memory once per tile. Layouts, filter strides and options as conv.comp.
#version 450
#define TILE 16
layout(local_size_x = TILE, local_size_y = TILE) in;
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

shared float Fs[TILE][TILE];      // [output channel][k]
shared float Xs[TILE][TILE + 1];  // [k][pixel]

uint at(uint n, uint c, uint h, uint w, uint Cn, uint Hn, uint Wn) {
  return p.nhwc != 0u ? ((n * Hn + h) * Wn + w) * Cn + c
                      : ((n * Cn + c) * Hn + h) * Wn + w;
}

// The filter tap k = (i, ky, kx) of output channel oc in group g.
float filter_at(uint g, uint oc, uint k) {
  uint taps = p.KH * p.KW;
  uint i = k / taps, r = k % taps;
  uint ig = p.C / p.groups, og = p.O / p.groups;
  uint c = g * ig + i;
  uint tap = (r / p.KW) * p.f_h + (r % p.KW) * p.f_w;
  tap += TRANSPOSED ? c * p.f_i + (oc % og) * p.f_o : oc * p.f_o + i * p.f_i;
  return f[tap];
}

// The input element tap k reaches from output pixel `pixel` of image n.
float column_at(uint n, uint g, uint k, uint pixel) {
  uint taps = p.KH * p.KW;
  uint i = k / taps, r = k % taps;
  uint ky = r / p.KW, kx = r % p.KW;
  uint oy = pixel / p.OW, ox = pixel % p.OW;
  int iy, ix;
  if (TRANSPOSED) {
    int ty = int(oy) + p.pt - int(ky) * p.dh;
    int tx = int(ox) + p.pl - int(kx) * p.dw;
    if (ty < 0 || tx < 0 || ty % p.sh != 0 || tx % p.sw != 0) return 0.0;
    iy = ty / p.sh;
    ix = tx / p.sw;
  } else {
    iy = int(oy) * p.sh + int(ky) * p.dh - p.pt;
    ix = int(ox) * p.sw + int(kx) * p.dw - p.pl;
  }
  if (iy < 0 || iy >= int(p.H) || ix < 0 || ix >= int(p.W)) return 0.0;
  uint c = g * (p.C / p.groups) + i;
  return x[at(n, c, uint(iy), uint(ix), p.C, p.H, p.W)];
}

void main() {
  uint og = p.O / p.groups;
  uint K = (p.C / p.groups) * p.KH * p.KW;
  uint pixels = p.OH * p.OW;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint pixel = gl_WorkGroupID.x * TILE + tx;   // this invocation's result
  uint channel = gl_WorkGroupID.y * TILE + ty;  // within the group
  for (uint ng = gl_WorkGroupID.z; ng < p.N * p.groups;
       ng += gl_NumWorkGroups.z) {
    uint n = ng / p.groups, g = ng % p.groups;
    float sum = 0.0;
    for (uint k0 = 0u; k0 < K; k0 += TILE) {
      uint row = gl_WorkGroupID.y * TILE + ty;
      Fs[ty][tx] = row < og && k0 + tx < K ? filter_at(g, g * og + row, k0 + tx)
                                           : 0.0;
      Xs[ty][tx] = k0 + ty < K && pixel < pixels
                       ? column_at(n, g, k0 + ty, pixel)
                       : 0.0;
      // The slices are in shared memory before anyone multiplies them.
      barrier();
      for (uint j = 0u; j < TILE; ++j) sum += Fs[ty][j] * Xs[j][tx];
      // Everyone is done with the slices before the next ones replace them.
      barrier();
    }
    if (channel < og && pixel < pixels) {
      uint oc = g * og + channel;
      if (HAS_BIAS) sum += bias[oc];
      y[at(n, oc, pixel / p.OW, pixel % p.OW, p.O, p.OH, p.OW)] = sum;
    }
  }
}
