// matmul and gemm on matmul.comp: 16×16 tiles of the result per workgroup,
// the batch (matmul's leading dimensions, broadcast) in the third
// workgroup dimension.
#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

constexpr uint32_t kTile = 16;

struct Geometry {
  int64_t m = 0, n = 0, k = 0;
  std::vector<int64_t> batch_shape, a_batch, b_batch;  // per batch dim
  int64_t a_row = 0, a_col = 0, b_row = 0, b_col = 0, d_row = 0, d_col = 0;
  float alpha = 1, beta = 0;
  bool has_d = false;
};

absl::StatusOr<std::vector<Dispatch>> Emit(const OpIO& io, const Geometry& g,
                                           Range d_range) {
  // A rank-8 matmul's batch fits: a guard past WebNN's largest rank.
  if (static_cast<int>(g.batch_shape.size()) > kMatmulBatchRank) {
    return absl::UnimplementedError(
        StrCat("more than ", kMatmulBatchRank,
               " batch dimensions on the vulkan backend"));
  }
  int64_t batches = Count(g.batch_shape);
  if (batches > 65535) {
    return absl::UnimplementedError(
        StrCat(batches,
               " matrices in one batch (the vulkan backend takes up "
               "to 65535)"));
  }
  Dispatch d;
  d.shader = &MatmulShader();
  d.spec = {g.has_d ? 1u : 0u};
  d.bindings = {io.in[0], io.in[1], d_range, io.out[0]};
  const int rank = static_cast<int>(g.batch_shape.size());
  d.push = {Word(g.m), Word(g.n), Word(g.k), Word(int64_t{rank})};
  for (int i = 0; i < kMatmulBatchRank; ++i)
    d.push.push_back(Word(i < rank ? g.batch_shape[i] : 1));
  for (int i = 0; i < kMatmulBatchRank; ++i)
    d.push.push_back(Word(i < rank ? g.a_batch[i] : 0));
  for (int i = 0; i < kMatmulBatchRank; ++i)
    d.push.push_back(Word(i < rank ? g.b_batch[i] : 0));
  for (int64_t v : {g.a_row, g.a_col, g.b_row, g.b_col, g.d_row, g.d_col}) {
    d.push.push_back(Word(v));
  }
  d.push.push_back(Word(g.alpha));
  d.push.push_back(Word(g.beta));
  d.groups[0] = static_cast<uint32_t>((g.n + kTile - 1) / kTile);
  d.groups[1] = static_cast<uint32_t>((g.m + kTile - 1) / kTile);
  d.groups[2] = static_cast<uint32_t>(batches);
  return std::vector<Dispatch>{d};
}

}  // namespace

absl::StatusOr<std::vector<Dispatch>> PlanMatmul(const OpIO& io) {
  const std::vector<int64_t>& a = io.in_types[0]->shape;
  const std::vector<int64_t>& b = io.in_types[1]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  Geometry g;
  if (io.node.op->kind == ir::OpKind::kGemm) {
    if (a.size() != 2 || b.size() != 2) {
      return absl::InvalidArgumentError("gemm takes two matrices");
    }
    const bool ta = io.attrs().GetBool("aTranspose", false);
    const bool tb = io.attrs().GetBool("bTranspose", false);
    g.m = ta ? a[1] : a[0];
    g.k = ta ? a[0] : a[1];
    g.n = tb ? b[0] : b[1];
    g.a_row = ta ? 1 : a[1];
    g.a_col = ta ? a[1] : 1;
    g.b_row = tb ? 1 : b[1];
    g.b_col = tb ? b[1] : 1;
    g.alpha = static_cast<float>(io.attrs().GetFloat("alpha", 1.0));
    g.beta = static_cast<float>(io.attrs().GetFloat("beta", 1.0));
    Range d_range = io.out[0];  // bound but unread without C
    if (io.in_types.size() > 2 && io.in_types[2] != nullptr) {
      const std::vector<int64_t>& c = io.in_types[2]->shape;
      g.has_d = true;
      d_range = io.in[2];
      // C broadcasts to [M, N] from the right.
      const int64_t c_cols = c.empty() ? 1 : c.back();
      const int64_t c_rows = c.size() < 2 ? 1 : c[c.size() - 2];
      g.d_col = c_cols > 1 ? 1 : 0;
      g.d_row = c_rows > 1 ? c_cols : 0;
    }
    return Emit(io, g, d_range);
  }
  if (a.size() < 2 || b.size() < 2 || out.size() < 2) {
    return absl::UnimplementedError(
        "matmul of vectors (rank 1) on the vulkan backend");
  }
  g.m = a[a.size() - 2];
  g.k = a.back();
  g.n = b.back();
  g.a_row = g.k;
  g.a_col = 1;
  g.b_row = g.n;
  g.b_col = 1;
  const int batch_rank = static_cast<int>(out.size()) - 2;
  g.batch_shape.assign(out.begin(), out.end() - 2);
  auto batch_strides = [&](const std::vector<int64_t>& shape) {
    std::vector<int64_t> own = Strides(shape), result(batch_rank, 0);
    const int shift = static_cast<int>(shape.size()) - 2 - batch_rank;
    for (int d = 0; d < batch_rank; ++d) {
      const int k = d + shift;
      if (k >= 0 && shape[k] != 1) result[d] = own[k];
    }
    return result;
  };
  g.a_batch = batch_strides(a);
  g.b_batch = batch_strides(b);
  return Emit(io, g, io.out[0]);
}

}  // namespace webnnm::backends::vulkan
