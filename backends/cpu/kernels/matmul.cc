// matmul and gemm on oneDNN's matmul primitive (created once per kernel,
// executed on our buffers). Batch dimensions broadcast as oneDNN does: the
// operands are brought to the same rank with leading 1s. gemm folds alpha
// into the primitive's output scale and beta * C into a sum post-operation
// over the result, which starts as C broadcast. A float32 matmul with fewer
// multiply-adds than CompileOptions::library_minimum_elements (and nothing
// fused) runs on a plain loop instead: at such sizes oneDNN's per-call
// overhead costs more than the arithmetic — each result summed in double,
// its products in order, rounded once; with AVX-512, results of at most 16
// values and tiles of short rows as vectors of doubles fed by permutations
// (the same sums). Either operand may be read transposed
// (KernelIO::transposed: a folded transpose).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backends/common/shape_util.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/dnnl_util.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/lanes_avx512.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

class MatmulKernel : public Kernel {
 public:
  MatmulKernel(CpuContext& context, F32Staging a, F32Staging b, F32Staging y)
      : context_(context),
        a_(std::move(a)),
        b_(std::move(b)),
        y_(std::move(y)) {}

  // With `post` (fused operations), sets `declined` instead of failing
  // when oneDNN cannot run them well (only a reference implementation).
  absl::Status Init(const dnnl::memory::desc& a, const dnnl::memory::desc& b,
                    const dnnl::memory::desc& y, dnnl::primitive_attr attr,
                    const PostOps* post = nullptr, bool* declined = nullptr) {
    try {
      if (post) attr.set_post_ops(post->ops());
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, y), attr,
                                      context_.engine());
      // Fused operations must not push oneDNN onto slower code: fuse only
      // when it keeps the implementation it picks without them.
      if (post && std::string_view(pd.impl_info_str()) !=
                      dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, y),
                                                   context_.engine())
                          .impl_info_str()) {
        *declined = true;
        return absl::OkStatus();
      }
      primitive_ = dnnl::matmul(pd);
      args_ = {
          {DNNL_ARG_SRC, dnnl::memory(a, context_.engine(), a_.data())},
          {DNNL_ARG_WEIGHTS, dnnl::memory(b, context_.engine(), b_.data())},
          {DNNL_ARG_DST, dnnl::memory(y, context_.engine(), y_.data())}};
      if (post) post->Bind(args_);
    } catch (const dnnl::error& e) {
      if (post) {
        *declined = true;
        return absl::OkStatus();
      }
      return DnnlError("matmul", e);
    }
    return absl::OkStatus();
  }

  std::string implementation() const override { return "oneDNN matmul"; }

  // For gemm: fills the result with C (broadcast) before each run.
  void SetPrefill(const std::byte* c, ir::DType dtype,
                  std::vector<int64_t> c_shape, std::vector<int64_t> y_shape) {
    c_ = c;
    c_dtype_ = dtype;
    plan_ = std::make_unique<BroadcastPlan>(
        y_shape, std::vector<std::vector<int64_t>>{
                     BroadcastStrides(c_shape, y_shape), Strides(y_shape)});
  }

  absl::Status Run() override {
    a_.Widen();
    b_.Widen();
    if (c_ != nullptr) Prefill();
    try {
      primitive_.execute(context_.stream(), args_);
      context_.stream().wait();
    } catch (const dnnl::error& e) {
      return DnnlError("matmul", e);
    }
    y_.Narrow();
    return absl::OkStatus();
  }

 private:
  void Prefill() {
    float* y = y_.data();
    plan_->ForEachRow([&](const int64_t* o, int64_t n, const int64_t* s) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t at = o[0] + i * s[0];
        y[o[1] + i] = c_dtype_ == ir::DType::kFloat16
                          ? Load(reinterpret_cast<const Half*>(c_) + at)
                          : reinterpret_cast<const float*>(c_)[at];
      }
    });
  }

  CpuContext& context_;
  F32Staging a_, b_, y_;
  dnnl::matmul primitive_;
  std::unordered_map<int, dnnl::memory> args_;
  const std::byte* c_ = nullptr;
  ir::DType c_dtype_ = ir::DType::kFloat32;
  std::unique_ptr<BroadcastPlan> plan_;
};

// y[b] = a[b] x b[b] for tiny float32 operands of rank >= 2, batch
// dimensions broadcast; sums in double, rounded once.
class SmallMatmulKernel : public Kernel {
 public:
  SmallMatmulKernel(const ir::TensorType& a, const ir::TensorType& b,
                    const ir::TensorType& y, const std::byte* a_data,
                    const std::byte* b_data, std::byte* y_data,
                    bool a_transposed, bool b_transposed)
      : a_(reinterpret_cast<const float*>(a_data)),
        b_(reinterpret_cast<const float*>(b_data)),
        y_(reinterpret_cast<float*>(y_data)) {
    const size_t rank = y.shape.size();
    m_ = y.shape[rank - 2];
    n_ = y.shape[rank - 1];
    k_ = a.shape[a.shape.size() - 1];
    // Element strides along (row, column) of each matrix.
    a_step_ =
        a_transposed ? std::pair{int64_t{1}, m_} : std::pair{k_, int64_t{1}};
    b_step_ =
        b_transposed ? std::pair{int64_t{1}, k_} : std::pair{n_, int64_t{1}};
    // The offset of each batch's matrices in a and b.
    std::vector<int64_t> batch(y.shape.begin(), y.shape.end() - 2);
    int64_t batches = ElementCount(batch);
    auto strides = [&](const ir::TensorType& t) {
      // Batch strides of t (in matrices), aligned right, 0 where broadcast.
      std::vector<int64_t> s(batch.size(), 0);
      int64_t stride = 1;
      size_t t_batch = t.shape.size() - 2;
      for (size_t i = 0; i < t_batch; ++i) {
        size_t d = t_batch - 1 - i, out = batch.size() - 1 - i;
        if (t.shape[d] != 1) s[out] = stride;
        stride *= t.shape[d];
      }
      return s;
    };
    std::vector<int64_t> sa = strides(a), sb = strides(b);
    for (int64_t i = 0; i < batches; ++i) {
      int64_t rest = i, oa = 0, ob = 0;
      for (size_t d = batch.size(); d-- > 0;) {
        int64_t coordinate = rest % batch[d];
        rest /= batch[d];
        oa += coordinate * sa[d];
        ob += coordinate * sb[d];
      }
      offsets_.push_back({oa * m_ * k_, ob * k_ * n_});
    }
    if (m_ == 0) offsets_.clear();  // nothing to compute
#if defined(__AVX512F__)
    // a read along its columns and b along its rows contiguously (a
    // weight gradient: a transposed batch times the gradients).
    tile_ = m_ * n_ <= 16 && m_ <= 8 && n_ <= 8 && m_ * n_ > 0 &&
            a_step_.first == 1 && b_step_.second == 1;
    // a rows end to end, a few of each, and b's rows contiguous — or b
    // (any layout) of at most 16 values, read whole (an input gradient
    // times a transposed weight).
    b_whole_ = b_step_.second != 1 && k_ * n_ <= 16;
    if (!tile_ && a_step_.first == k_ && a_step_.second == 1 &&
        (b_step_.second == 1 || b_whole_) && n_ <= 8 && k_ <= 16 && n_ > 0 &&
        k_ > 0) {
      row_tile_ = std::min(16 / n_, 16 / k_);
      if (row_tile_ < 2) row_tile_ = 0;  // a row at a time: Rows is faster
    }
    if (tile_ || row_tile_ > 0) {
      alignas(64) int64_t i[16] = {}, j[16] = {};
      const int64_t lanes = tile_ ? m_ * n_ : row_tile_ * n_;
      for (int64_t q = 0; q < lanes; ++q) {
        i[q] = tile_ ? q / n_ : q / n_ * k_;
        j[q] = row_tile_ > 0 && b_whole_ ? q % n_ * b_step_.second : q % n_;
      }
      for (int h = 0; h < 2; ++h) {
        tile_i_[h] = _mm512_load_si512(i + 8 * h);
        tile_j_[h] = _mm512_load_si512(j + 8 * h);
      }
    }
#endif
    b_wide_.resize(k_ * n_);
    acc_.resize(n_);
  }

  absl::Status Run() override {
    float* y = y_;
    for (const auto& [oa, ob] : offsets_) {
#if defined(__AVX512F__)
      if (tile_) {
        Tile(a_ + oa, b_ + ob, y);
        y += m_ * n_;
        continue;
      }
      if (row_tile_ > 0) {
        RowTiles(a_ + oa, b_ + ob, y);
        y += m_ * n_;
        continue;
      }
#endif
      WidenB(b_ + ob);
      switch (n_) {
        case 1:
          Rows<1>(a_ + oa, y);
          break;
        case 2:
          Rows<2>(a_ + oa, y);
          break;
        case 3:
          Rows<3>(a_ + oa, y);
          break;
        case 4:
          Rows<4>(a_ + oa, y);
          break;
        case 8:
          Rows<8>(a_ + oa, y);
          break;
        default:
          Rows<0>(a_ + oa, y);
          break;
      }
      y += m_ * n_;
    }
    return absl::OkStatus();
  }

 private:
  // b's matrix as doubles, row-major k x n, in b_wide_.
  void WidenB(const float* b) {
    double* w = b_wide_.data();
    for (int64_t p = 0; p < k_; ++p) {
      for (int64_t j = 0; j < n_; ++j) {
        w[p * n_ + j] = b[p * b_step_.first + j * b_step_.second];
      }
    }
  }

  // y = a x b_wide_: each result sums its products in double with p
  // ascending (a product, then a sum: the bits of a dot product in order),
  // a row's n results advancing together.
  template <int kN>
  void Rows(const float* a, float* y) {
    const int64_t n = kN > 0 ? kN : n_;
    const double* b = b_wide_.data();
    double* acc = kN > 0 ? nullptr : acc_.data();
    double fixed[kN > 0 ? kN : 1];
    if constexpr (kN > 0) acc = fixed;
    for (int64_t i = 0; i < m_; ++i) {
      const float* row = a + i * a_step_.first;
      for (int64_t j = 0; j < n; ++j) acc[j] = 0;
      for (int64_t p = 0; p < k_; ++p) {
        const double x = row[p * a_step_.second];
        const double* bp = b + p * n;
        for (int64_t j = 0; j < n; ++j) acc[j] += x * bp[j];
      }
      for (int64_t j = 0; j < n; ++j) y[i * n + j] = static_cast<float>(acc[j]);
    }
  }

#if defined(__AVX512F__)
  // A result of at most 16 values (a small layer's weight gradient): two
  // vectors of doubles, lane q = i n + j, to which each p adds a[i][p]
  // b[p][j] — a's column p and b's row p spread over the lanes by
  // permutations — so that lane q sums exactly what Rows sums for (i, j).
  void Tile(const float* a, const float* b, float* y) const {
    __m512d acc[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
    const __mmask8 m_lanes = FirstLanes8(m_), n_lanes = FirstLanes8(n_);
    for (int64_t p = 0; p < k_; ++p) {
      const __m512d column = _mm512_cvtps_pd(
          _mm256_maskz_loadu_ps(m_lanes, a + p * a_step_.second));
      const __m512d row = _mm512_cvtps_pd(
          _mm256_maskz_loadu_ps(n_lanes, b + p * b_step_.first));
      for (int h = 0; h < 2; ++h) {
        acc[h] = _mm512_add_pd(
            acc[h], _mm512_mul_pd(_mm512_permutexvar_pd(tile_i_[h], column),
                                  _mm512_permutexvar_pd(tile_j_[h], row)));
      }
    }
    StoreNarrowed16(y, m_ * n_, acc[0], acc[1]);
  }

  // Rows at a time with the same sums (a small layer's forward matmul):
  // row_tile_ rows of a, at most 16 floats laid end to end, as two vectors
  // of doubles; lane q = i n + j of the tile's result, to which each p adds
  // a[i][p] b[p][j], picked from them by permutations.
  void RowTiles(const float* a, const float* b, float* y) const {
    const __mmask8 n_lanes = FirstLanes8(n_);
    __m512d b_lo = _mm512_setzero_pd(), b_hi = _mm512_setzero_pd();
    if (b_whole_) WidenFloats16(b, k_ * n_, b_lo, b_hi);  // as stored
    for (int64_t i0 = 0; i0 < m_; i0 += row_tile_) {
      const int64_t rows = std::min(row_tile_, m_ - i0);
      __m512d lo, hi;  // the tile's rows of a
      WidenFloats16(a + i0 * k_, rows * k_, lo, hi);
      __m512d acc[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
      for (int64_t p = 0; p < k_; ++p) {
        const __m512i at = _mm512_set1_epi64(p);
        const __m512i b_at = _mm512_set1_epi64(p * b_step_.first);
        const __m512d row = b_whole_ ? _mm512_setzero_pd()
                                     : _mm512_cvtps_pd(_mm256_maskz_loadu_ps(
                                           n_lanes, b + p * b_step_.first));
        for (int h = 0; h < 2; ++h) {
          const __m512d x =
              _mm512_permutex2var_pd(lo, _mm512_add_epi64(tile_i_[h], at), hi);
          const __m512d w =
              b_whole_ ? _mm512_permutex2var_pd(
                             b_lo, _mm512_add_epi64(tile_j_[h], b_at), b_hi)
                       : _mm512_permutexvar_pd(tile_j_[h], row);
          acc[h] = _mm512_add_pd(acc[h], _mm512_mul_pd(x, w));
        }
      }
      StoreNarrowed16(y + i0 * n_, rows * n_, acc[0], acc[1]);
    }
  }

  bool tile_ = false;
  int64_t row_tile_ = 0;  // rows a RowTiles tile (0: not used)
  bool b_whole_ = false;  // RowTiles picks b's values from all of them
  // Lane q's i and j (Tile), or its offset i k in the a block and j (or,
  // b read whole, j's offset in b) (RowTiles).
  __m512i tile_i_[2], tile_j_[2];
#endif

  const float* a_;
  const float* b_;
  float* y_;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  std::pair<int64_t, int64_t> a_step_, b_step_;
  std::vector<std::pair<int64_t, int64_t>> offsets_;
  std::vector<double> b_wide_, acc_;  // k x n and n
};

// Whether a matmul is small enough for SmallMatmulKernel (fused operations
// aside).
bool SmallMatmul(const KernelIO& io) {
  const ir::TensorType& a = *io.in_types[0];
  const ir::TensorType& b = *io.in_types[1];
  const ir::TensorType& y = *io.out_types[0];
  if (a.dtype != ir::DType::kFloat32 || b.dtype != ir::DType::kFloat32 ||
      y.dtype != ir::DType::kFloat32 || a.shape.size() < 2 ||
      b.shape.size() < 2 || y.shape.size() < 2) {
    return false;
  }
  int64_t k = a.shape.back();
  return ElementCount(y.shape) * k < io.context.dnnl_minimum_elements();
}

F32Staging Stage(const ir::TensorType& type, const std::byte* buffer) {
  return F32Staging(type.dtype, const_cast<std::byte*>(buffer),
                    ElementCount(type.shape));
}

DnnlDims Padded(const std::vector<int64_t>& shape, size_t rank) {
  DnnlDims dims(rank - shape.size(), 1);
  dims.insert(dims.end(), shape.begin(), shape.end());
  return dims;
}

// The descriptor of an operand of logical shape `shape` brought to `rank`
// with leading 1s; `transposed`: its buffer holds the last two dimensions
// swapped (a folded transpose), read with their strides swapped.
dnnl::memory::desc OperandDesc(const std::vector<int64_t>& shape, size_t rank,
                               bool transposed) {
  DnnlDims dims = Padded(shape, rank);
  if (!transposed) return PlainDesc(dims);
  DnnlDims stored = dims;
  std::swap(stored[rank - 2], stored[rank - 1]);
  DnnlDims strides(rank);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[i] = stride;
    stride *= stored[i];
  }
  std::swap(strides[rank - 2], strides[rank - 1]);
  return StridedDesc(dims, strides);
}

}  // namespace

MadeKernel MakeMatmulKernel(const KernelIO& io) {
  const ir::TensorType& a = *io.in_types[0];
  const ir::TensorType& b = *io.in_types[1];
  const ir::TensorType& y = *io.out_types[0];
  if (SmallMatmul(io)) {
    if (!io.fused.empty()) return nullptr;  // unfused, it runs on the loop
    return std::make_unique<SmallMatmulKernel>(a, b, y, io.in[0], io.in[1],
                                               io.out[0], io.is_transposed(0),
                                               io.is_transposed(1));
  }
  size_t rank = y.shape.size();
  auto kernel = std::make_unique<MatmulKernel>(
      io.context, Stage(a, io.in[0]), Stage(b, io.in[1]), Stage(y, io.out[0]));
  std::optional<PostOps> post;
  if (!io.fused.empty()) {
    post.emplace();
    if (!post->Build(io.fused, DnnlDims(y.shape), io.context.engine())) {
      return nullptr;
    }
  }
  bool declined = false;
  absl::Status status = kernel->Init(
      OperandDesc(a.shape, rank, io.is_transposed(0)),
      OperandDesc(b.shape, rank, io.is_transposed(1)), PlainDesc(y.shape),
      dnnl::primitive_attr(), post ? &*post : nullptr, &declined);
  if (!status.ok()) return status;
  if (declined) return nullptr;
  return kernel;
}

MadeKernel MakeGemmKernel(const KernelIO& io) {
  const ir::TensorType& a = *io.in_types[0];
  const ir::TensorType& b = *io.in_types[1];
  const ir::TensorType& y = *io.out_types[0];
  if (a.rank() != 2 || b.rank() != 2) {
    // WebNN's gemm is 2-D; the model language's batched one is decomposed
    // by the DAG before a backend sees it.
    return absl::InvalidArgumentError("gemm takes two matrices");
  }
  bool ta = io.attrs().GetBool("aTranspose", false);
  bool tb = io.attrs().GetBool("bTranspose", false);
  float alpha = static_cast<float>(io.attrs().GetFloat("alpha", 1.0));
  float beta = static_cast<float>(io.attrs().GetFloat("beta", 1.0));
  // A transposed operand is the same buffer read with swapped strides.
  auto operand = [](const ir::TensorType& t, bool transposed) {
    int64_t rows = t.shape[0], cols = t.shape[1];
    return transposed ? StridedDesc({cols, rows}, {1, cols})
                      : StridedDesc({rows, cols}, {cols, 1});
  };
  dnnl::primitive_attr attr;
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  bool with_c = io.has(2) && beta != 0.0f;
  if (with_c) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  auto kernel = std::make_unique<MatmulKernel>(
      io.context, Stage(a, io.in[0]), Stage(b, io.in[1]), Stage(y, io.out[0]));
  absl::Status status =
      kernel->Init(operand(a, ta), operand(b, tb), PlainDesc(y.shape), attr);
  if (!status.ok()) return status;
  if (with_c) {
    kernel->SetPrefill(io.in[2], io.in_types[2]->dtype, io.in_types[2]->shape,
                       y.shape);
  }
  return kernel;
}

}  // namespace webnnm::backends::cpu
