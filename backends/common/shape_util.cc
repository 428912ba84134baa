#include "backends/common/shape_util.h"

#include "engine/base/strings.h"

namespace webnnm::backends {

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // sizes were checked at compile time
  return n;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& out) {
  std::vector<int64_t> own = Strides(shape);
  std::vector<int64_t> strides(out.size(), 0);
  size_t offset = out.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[offset + i] = shape[i] == 1 && out[offset + i] != 1 ? 0 : own[i];
  }
  return strides;
}

std::vector<int32_t> BroadcastOffsets(const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& out) {
  std::vector<int32_t> offsets(ElementCount(out));
  std::vector<int64_t> at(out.size(), 0);  // the multi-index of element i
  int64_t offset = 0;
  for (int32_t& v : offsets) {
    v = static_cast<int32_t>(offset);
    for (size_t k = out.size(); k-- > 0;) {  // next element: carry
      offset += strides[k];
      if (++at[k] < out[k]) break;
      offset -= strides[k] * out[k];
      at[k] = 0;
    }
  }
  return offsets;
}

BroadcastPlan::BroadcastPlan(std::vector<int64_t> shape,
                             std::vector<std::vector<int64_t>> strides)
    : strides_(std::move(strides)) {
  count_ = ElementCount(shape);
  // Drop dimensions of size 1, then merge neighbours that every operand
  // reads contiguously (stride[d] == stride[d+1] * size[d+1]).
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> merged(strides_.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool can_merge = !dims.empty();
    for (size_t j = 0; j < strides_.size() && can_merge; ++j) {
      can_merge = merged[j].back() == strides_[j][d] * shape[d];
    }
    if (can_merge) {
      dims.back() *= shape[d];
      for (size_t j = 0; j < strides_.size(); ++j) {
        merged[j].back() = strides_[j][d];
      }
    } else {
      dims.push_back(shape[d]);
      for (size_t j = 0; j < strides_.size(); ++j) {
        merged[j].push_back(strides_[j][d]);
      }
    }
  }
  shape_ = std::move(dims);
  strides_ = std::move(merged);
}

int64_t Outer(const std::vector<int64_t>& shape, int axis) {
  int64_t n = 1;
  for (int i = 0; i < axis; ++i) n *= shape[i];
  return n;
}

int64_t Inner(const std::vector<int64_t>& shape, int axis) {
  int64_t n = 1;
  for (size_t i = axis; i < shape.size(); ++i) n *= shape[i];
  return n;
}

absl::StatusOr<BlockLayout> MakeBlockLayout(const std::vector<int64_t>& in,
                                            const std::vector<int64_t>& param) {
  const int rank = static_cast<int>(in.size());
  const int prank = static_cast<int>(param.size());
  if (prank > rank) {
    return absl::InvalidArgumentError(
        "the scale has a higher rank than the input");
  }
  BlockLayout l;
  l.shape = in;
  l.block.assign(rank, 1);
  l.pstride.assign(rank, 0);
  std::vector<int64_t> own = Strides(param);
  for (int d = 0; d < rank; ++d) {
    const int p = d - (rank - prank);
    const int64_t size = p >= 0 ? param[p] : 1;
    if (size < 1 || in[d] % size != 0) {
      return absl::InvalidArgumentError(
          StrCat("input dimension ", d, " (", in[d],
                 ") is not a multiple of the scale's (", size, ")"));
    }
    l.block[d] = in[d] / size;
    l.pstride[d] = p >= 0 && size > 1 ? own[p] : 0;
    l.count *= in[d];
  }
  return l;
}

}  // namespace webnnm::backends
