#include "backends/cpu/kernels/strided_copy.h"

#include <algorithm>
#include <cstdint>

namespace webnnm::backends::cpu {
namespace {

template <int S>
void CopyRowOf(std::byte* dst, int64_t dst_stride, const std::byte* src,
               int64_t src_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    CopyElement<S>(dst + i * dst_stride, src + i * src_stride);
  }
}

// Copies the 2-D block rows x cols (dst contiguous along cols, src along
// rows) in square tiles, so both sides stay in cache.
template <int S>
void CopyTiles(std::byte* dst, int64_t dst_row, const std::byte* src,
               int64_t src_col, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t r = r0; r < r1; ++r) {
        std::byte* d = dst + r * dst_row;
        const std::byte* s = src + r * S;
        for (int64_t c = c0; c < c1; ++c) {
          CopyElement<S>(d + c * S, s + c * src_col);
        }
      }
    }
  }
}

}  // namespace

void FillElements(std::byte* dst, int64_t count, const std::byte* value,
                  int size) {
  if (count <= 0) return;
  if (size == 1) {
    std::memset(dst, static_cast<int>(*value), static_cast<size_t>(count));
    return;
  }
  // One element, then double the filled prefix.
  std::memcpy(dst, value, size);
  const int64_t total = count * size;
  int64_t filled = size;
  while (filled < total) {
    int64_t chunk = std::min(filled, total - filled);
    std::memcpy(dst + filled, dst, static_cast<size_t>(chunk));
    filled += chunk;
  }
}

void CopyRow(std::byte* dst, int64_t dst_stride, const std::byte* src,
             int64_t src_stride, int64_t n, int size) {
  if (src_stride == size && dst_stride == size) {
    std::memcpy(dst, src, static_cast<size_t>(n * size));
  } else if (src_stride == 0 && dst_stride == size) {
    FillElements(dst, n, src, size);
  } else if (size == 4 && dst_stride == 4 && src_stride == 8) {
    // Every other 32-bit element (a max-pooling gradient's 2x2 windows):
    // a loop the compiler vectorizes with permutes.
    uint32_t* d = reinterpret_cast<uint32_t*>(dst);
    const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = s[2 * i];
  } else {
    DispatchSize(size, [&](auto s) {
      CopyRowOf<decltype(s)::value>(dst, dst_stride, src, src_stride, n);
    });
  }
}

StridedCopy::StridedCopy(const std::vector<int64_t>& shape,
                         const std::vector<int64_t>& src_strides,
                         const std::vector<int64_t>& dst_strides,
                         int element_size)
    : size_(element_size) {
  count_ = 1;
  for (int64_t d : shape) count_ *= d;
  // Drop dimensions of size 1; merge a dimension into the one before it
  // when both views step over it as one run (stride[d-1] = stride[d] * n).
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!dims_.empty() && src_.back() == src_strides[d] * shape[d] &&
        dst_.back() == dst_strides[d] * shape[d]) {
      dims_.back() *= shape[d];
      src_.back() = src_strides[d];
      dst_.back() = dst_strides[d];
    } else {
      dims_.push_back(shape[d]);
      src_.push_back(src_strides[d]);
      dst_.push_back(dst_strides[d]);
    }
  }
  for (int64_t& s : src_) s *= size_;
  for (int64_t& s : dst_) s *= size_;
  index_.assign(dims_.size(), 0);
  // A transposition: rows contiguous in the destination only, and another
  // dimension contiguous in the source. Worth tiling when both are long.
  const int last = static_cast<int>(dims_.size()) - 1;
  if (last >= 1 && dst_[last] == size_ && src_[last] != size_ &&
      src_[last] != 0 && dims_[last] >= 8) {
    for (int d = 0; d < last; ++d) {
      if (src_[d] == size_ && dims_[d] >= 8) tiled_ = d;
    }
  }
}

void StridedCopy::RunTiled(const std::byte* src, std::byte* dst) const {
  const int last = static_cast<int>(dims_.size()) - 1;
  const int t = tiled_;
  const int64_t blocks = count_ / (dims_[last] * dims_[t]);
  std::fill(index_.begin(), index_.end(), 0);
  int64_t s = 0, o = 0;  // byte offsets of the block's start
  for (int64_t b = 0; b < blocks; ++b) {
    DispatchSize(size_, [&](auto e) {
      CopyTiles<decltype(e)::value>(dst + o, dst_[t], src + s, src_[last],
                                    dims_[t], dims_[last]);
    });
    for (int d = last - 1; d >= 0; --d) {
      if (d == t) continue;
      s += src_[d];
      o += dst_[d];
      if (++index_[d] < dims_[d]) break;
      s -= src_[d] * dims_[d];
      o -= dst_[d] * dims_[d];
      index_[d] = 0;
    }
  }
}

void StridedCopy::Run(const std::byte* src, std::byte* dst) const {
  if (count_ <= 0) return;
  if (dims_.empty()) {
    std::memcpy(dst, src, size_);
    return;
  }
  if (tiled_ >= 0) {
    RunTiled(src, dst);
    return;
  }
  const int last = static_cast<int>(dims_.size()) - 1;
  const int64_t n = dims_[last];
  const int64_t rows = count_ / n;
  std::fill(index_.begin(), index_.end(), 0);
  int64_t s = 0, t = 0;  // byte offsets of the row's start
  for (int64_t r = 0; r < rows; ++r) {
    CopyRow(dst + t, dst_[last], src + s, src_[last], n, size_);
    for (int d = last - 1; d >= 0; --d) {
      s += src_[d];
      t += dst_[d];
      if (++index_[d] < dims_[d]) break;
      s -= src_[d] * dims_[d];
      t -= dst_[d] * dims_[d];
      index_[d] = 0;
    }
  }
}

}  // namespace webnnm::backends::cpu
