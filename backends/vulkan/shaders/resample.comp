// resample2d on float32 4-D tensors, as the CPU backend computes it
// (backends/cpu/kernels/resample.cc): half-pixel centres, the input
// coordinate of output index o along a resized axis is
// clamp((2o + 1)·in / (2·out) − 0.5, 0, in − 1), here the exact fraction
// ((2o + 1)·in − out) / (2·out) in integers. Nearest-neighbour takes
// ceil(coordinate − 0.5) (ties go down); LINEAR interpolates between the
// floor and the ceiling along both axes. One invocation per output. TYPE:
// 0 float32, 1 int32, 2 uint32 (int8/uint8 widened): integers interpolate
// in float and round to nearest even.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint LINEAR = 0;
layout(constant_id = 1) const uint TYPE = 0;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Push {
  uint n;
  uint axis_y;
  uint axis_x;
  uint in_shape[4];
  uint out_shape[4];
} p;

// Along an axis of `size` inputs resized to `to` outputs: the input
// indices around output o and the weight of the upper one (`to` outputs).
void linear_at(uint o, uint size, uint to, out uint lo, out uint hi,
               out float t) {
  int num = int((2u * o + 1u) * size) - int(to);
  int den = int(2u * to);
  lo = 0u;
  hi = 0u;
  t = 0.0;
  if (num <= 0) return;
  if (num >= int(size - 1u) * den) {
    lo = hi = size - 1u;
    return;
  }
  lo = uint(num / den);
  int rest = num - int(lo) * den;
  hi = rest == 0 ? lo : lo + 1u;
  t = float(rest) / float(den);
}

uint nearest_at(uint o, uint size, uint to) {
  int num = int((2u * o + 1u) * size) - int(to);
  int den = int(2u * to);
  if (num <= 0) return 0u;
  if (num >= int(size - 1u) * den) return size - 1u;
  // ceil(num / den − 0.5) = ceil((num − to) / den)
  int shifted = num - int(to);
  if (shifted <= 0) return 0u;
  return min(uint((shifted + den - 1) / den), size - 1u);
}

float load(uint i) {
  return TYPE == 0u ? uintBitsToFloat(x[i]) : TYPE == 1u ? float(int(x[i])) : float(x[i]);
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint in_stride[4];
  in_stride[3] = 1u;
  for (int d = 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * p.in_shape[d + 1];
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
    uint c[4];
    uint rest = i;
    for (int d = 3; d >= 0; --d) {
      c[d] = rest % p.out_shape[d];
      rest /= p.out_shape[d];
    }
    uint base = 0u;
    for (uint d = 0u; d < 4u; ++d) {
      if (d != p.axis_y && d != p.axis_x) base += c[d] * in_stride[d];
    }
    uint ay = p.axis_y, ax = p.axis_x;
    if (LINEAR == 0u) {
      uint iy = nearest_at(c[ay], p.in_shape[ay], p.out_shape[ay]);
      uint ix = nearest_at(c[ax], p.in_shape[ax], p.out_shape[ax]);
      y[i] = x[base + iy * in_stride[ay] + ix * in_stride[ax]];
    } else {
      uint y0, y1, x0, x1;
      float ty, tx;
      linear_at(c[ay], p.in_shape[ay], p.out_shape[ay], y0, y1, ty);
      linear_at(c[ax], p.in_shape[ax], p.out_shape[ax], x0, x1, tx);
      uint sy = in_stride[ay], sx = in_stride[ax];
      float v00 = load(base + y0 * sy + x0 * sx), v01 = load(base + y0 * sy + x1 * sx);
      float v10 = load(base + y1 * sy + x0 * sx), v11 = load(base + y1 * sy + x1 * sx);
      float top = v00 * (1.0 - tx) + v01 * tx;
      float bottom = v10 * (1.0 - tx) + v11 * tx;
      float v = top * (1.0 - ty) + bottom * ty;
      if (TYPE == 0u) y[i] = floatBitsToUint(v);
      else if (TYPE == 1u) y[i] = uint(int(roundEven(v)));
      else y[i] = uint(roundEven(max(v, 0.0)));
    }
  }
}
