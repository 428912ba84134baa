// maxPool2dGradient of float32 nchw images over windows that tile them: one
// invocation per element of dx, which finds its window's first maximal tap
// (argMax's rule: a larger value, or the first NaN) and takes the window's
// gradient when that tap is its own; 0 otherwise, and outside every window.
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Dy { float dy[]; };
layout(std430, binding = 2) writeonly buffer Dx { float dx[]; };
layout(push_constant) uniform Push {
  uint planes, H, W, OH, OW, KH, KW;
} p;

void main() {
  uint total = p.planes * p.H * p.W;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < total; e += stride) {
    uint w = e % p.W, rest = e / p.W;
    uint h = rest % p.H, plane = rest / p.H;
    uint oy = h / p.KH, ox = w / p.KW;
    float value = 0.0;
    if (oy < p.OH && ox < p.OW) {
      uint base = plane * p.H * p.W;
      uint at = base + oy * p.KH * p.W + ox * p.KW;
      float best = x[at];
      for (uint i = 0u; i < p.KH; ++i) {
        uint row = base + (oy * p.KH + i) * p.W + ox * p.KW;
        for (uint j = (i == 0u ? 1u : 0u); j < p.KW; ++j) {
          float v = x[row + j];
          if (v > best || (isnan(v) && !isnan(best))) {
            best = v;
            at = row + j;
          }
        }
      }
      if (at == e) value = dy[(plane * p.OH + oy) * p.OW + ox];
    }
    dx[e] = value;
  }
}
