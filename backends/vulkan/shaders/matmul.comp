// C = alpha · op(A) · op(B) (+ beta · D), float32, batched with broadcast
// batch dimensions: one 16×16 tile of C per workgroup, the K dimension
// walked in 16-wide slices staged through shared memory so that each
// element of A and B is read from global memory once per tile.
// A's element (m, k) is at a_base + m·a_row + k·a_col (a transposed operand
// just swaps the two strides); likewise B. HAS_D adds beta·D (gemm's C,
// broadcast through its strides).
#version 450
#define TILE 16
layout(local_size_x = TILE, local_size_y = TILE) in;
layout(constant_id = 0) const bool HAS_D = false;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer D { float d[]; };
layout(std430, binding = 3) writeonly buffer C { float c[]; };
layout(push_constant) uniform Push {
  uint M, N, K;
  uint batch_rank;  // at most 6: kMatmulBatchRank (shaders.h)
  uint batch_shape[6];
  uint a_batch[6];
  uint b_batch[6];
  uint a_row, a_col, b_row, b_col;
  uint d_row, d_col;
  float alpha, beta;
} p;

shared float As[TILE][TILE];
shared float Bs[TILE][TILE + 1];

void main() {
  uint batch = gl_WorkGroupID.z;
  uint rest = batch, a_base = 0, b_base = 0;
  for (int i = int(p.batch_rank) - 1; i >= 0; --i) {
    uint coord = rest % p.batch_shape[i];
    rest /= p.batch_shape[i];
    a_base += coord * p.a_batch[i];
    b_base += coord * p.b_batch[i];
  }
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint row = gl_WorkGroupID.y * TILE + ty;
  uint col = gl_WorkGroupID.x * TILE + tx;
  float sum = 0.0;
  for (uint k0 = 0; k0 < p.K; k0 += TILE) {
    uint ka = k0 + tx, kb = k0 + ty;
    As[ty][tx] = (row < p.M && ka < p.K) ? a[a_base + row * p.a_row + ka * p.a_col] : 0.0;
    Bs[ty][tx] = (kb < p.K && col < p.N) ? b[b_base + kb * p.b_row + col * p.b_col] : 0.0;
    // The tile is complete before anyone reads it.
    barrier();
    for (uint k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
    // Everyone is done with the tile before it is overwritten.
    barrier();
  }
  if (row < p.M && col < p.N) {
    float value = p.alpha * sum;
    if (HAS_D) value += p.beta * d[row * p.d_row + col * p.d_col];
    c[batch * p.M * p.N + row * p.N + col] = value;
  }
}
