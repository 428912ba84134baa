// Gathers: gather (whole slices along an axis), gatherElements (one element
// per index) and gatherND (slices at whole coordinates). Indices are int32,
// uint32 or int64 (uint64 also works); negative values count from the end
// of their dimension and what is still out of range is clamped into it, so
// nothing is ever read out of bounds whatever the index data. Elements move
// as raw bytes of ir::RuntimeElementSize.
#include <cstring>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

absl::Status BadIndexType(const KernelIO& io) {
  return absl::UnimplementedError(
      StrCat("indices of type ", ir::DTypeName(io.in_types[1]->dtype)));
}

// Iterates over `shape` (row-major, rank >= 1) in rows along the last
// dimension: f(position, offset) for each row, `position` the linear index
// of its first element and `offset` the dot product of its index with
// `strides`. `index` is scratch of the shape's rank.
template <typename F>
void ForEachRow(const std::vector<int64_t>& shape,
                const std::vector<int64_t>& strides, int64_t* index, F&& f) {
  const int last = static_cast<int>(shape.size()) - 1;
  const int64_t n = shape[last];
  const int64_t rows = ElementCount(shape) / n;
  for (int d = 0; d < last; ++d) index[d] = 0;
  int64_t offset = 0;
  for (int64_t r = 0; r < rows; ++r) {
    f(r * n, offset);
    for (int d = last - 1; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

// gatherElements with index type I and element size S.
template <typename I, int S>
class GatherElementsKernel : public Kernel {
 public:
  GatherElementsKernel(const KernelIO& io, int axis)
      : x_(io.in[0]),
        indices_(reinterpret_cast<const I*>(io.in[1])),
        y_(io.out[0]),
        shape_(io.in_types[1]->shape),
        strides_(Strides(io.in_types[0]->shape)),
        axis_stride_(strides_[axis]),
        axis_size_(io.in_types[0]->shape[axis]),
        index_(shape_.size(), 0) {
    strides_[axis] = 0;  // the index supplies this coordinate
    row_stride_ = strides_.back();
  }

  absl::Status Run() override {
    const int64_t n = shape_.back();
    ForEachRow(shape_, strides_, index_.data(), [&](int64_t p, int64_t base) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t at = base + i * row_stride_ +
                     ClampIndex(indices_[p + i], axis_size_) * axis_stride_;
        CopyElement<S>(y_ + (p + i) * S, x_ + at * S);
      }
    });
    return absl::OkStatus();
  }

 private:
  const std::byte* x_;
  const I* indices_;
  std::byte* y_;
  std::vector<int64_t> shape_;    // the indices' (and result's) shape
  std::vector<int64_t> strides_;  // the input's, 0 along the axis
  int64_t axis_stride_, axis_size_, row_stride_ = 0;
  std::vector<int64_t> index_;
};

}  // namespace

// gather: y[o, j, i] = x[o, clamp(indices[j]), i] with o the index before
// `axis`, j over the indices and i the slab after `axis`.
MadeKernel MakeGatherKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  const int axis = static_cast<int>(io.attrs().GetInt("axis", 0));
  if (axis < 0 || axis >= rank) {
    return absl::InvalidArgumentError("gather axis out of range");
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= in[d];
  for (int d = axis + 1; d < rank; ++d) inner *= in[d];
  const int64_t n = in[axis];
  const int64_t count = ElementCount(io.in_types[1]->shape);
  if (outer * count * inner != ElementCount(io.out_types[0]->shape)) {
    return absl::InvalidArgumentError("gather result has the wrong shape");
  }
  const size_t slab = inner * ir::RuntimeElementSize(io.in_types[0]->dtype);
  const std::byte* x = io.in[0];
  std::byte* y = io.out[0];
  MadeKernel kernel = BadIndexType(io);
  DispatchIndex(io.in_types[1]->dtype, [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* indices = reinterpret_cast<const I*>(io.in[1]);
    kernel = MakeFunctionKernel([=] {
      std::byte* p = y;
      for (int64_t o = 0; o < outer; ++o) {
        const std::byte* block = x + o * n * slab;
        for (int64_t j = 0; j < count; ++j) {
          std::memcpy(p, block + ClampIndex(indices[j], n) * slab, slab);
          p += slab;
        }
      }
    });
  });
  return kernel;
}

// gatherElements: y[..., i, ...] = x[..., clamp(indices[..., i, ...]), ...]
// along `axis`; the indices (and result) may be smaller than the input
// along the other axes.
MadeKernel MakeGatherElementsKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& indices = io.in_types[1]->shape;
  const int rank = static_cast<int>(in.size());
  const int axis = static_cast<int>(io.attrs().GetInt("axis", 0));
  if (axis < 0 || axis >= rank) {
    return absl::InvalidArgumentError("gatherElements axis out of range");
  }
  if (static_cast<int>(indices.size()) != rank ||
      io.out_types[0]->shape != indices) {
    return absl::InvalidArgumentError("gatherElements shapes do not match");
  }
  for (int d = 0; d < rank; ++d) {
    if (d != axis && indices[d] > in[d]) {
      return absl::InvalidArgumentError(
          "gatherElements indices exceed the input");
    }
  }
  MadeKernel kernel = BadIndexType(io);
  DispatchIndex(io.in_types[1]->dtype, [&](auto tag) {
    using I = typename decltype(tag)::type;
    DispatchSize(ir::RuntimeElementSize(io.in_types[0]->dtype), [&](auto s) {
      kernel = std::make_unique<GatherElementsKernel<I, decltype(s)::value>>(
          io, axis);
    });
  });
  return kernel;
}

// gatherND: the last dimension of the indices (k) holds a coordinate into
// the input's first k dimensions; each picks the slab of the rest.
MadeKernel MakeGatherNDKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& indices = io.in_types[1]->shape;
  if (indices.empty() || indices.back() < 1 ||
      indices.back() > static_cast<int64_t>(in.size())) {
    return absl::InvalidArgumentError("gatherND coordinates do not fit");
  }
  const int k = static_cast<int>(indices.back());
  const int64_t tuples = ElementCount(indices) / k;
  std::vector<int64_t> dims(in.begin(), in.begin() + k);
  std::vector<int64_t> strides = Strides(in);
  strides.resize(k);
  int64_t inner = 1;
  for (size_t d = k; d < in.size(); ++d) inner *= in[d];
  if (tuples * inner != ElementCount(io.out_types[0]->shape)) {
    return absl::InvalidArgumentError("gatherND result has the wrong shape");
  }
  const int size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  const size_t slab = inner * size;
  const std::byte* x = io.in[0];
  std::byte* y = io.out[0];
  MadeKernel kernel = BadIndexType(io);
  DispatchIndex(io.in_types[1]->dtype, [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* coords = reinterpret_cast<const I*>(io.in[1]);
    kernel = MakeFunctionKernel([=] {
      for (int64_t t = 0; t < tuples; ++t) {
        int64_t at = 0;
        for (int d = 0; d < k; ++d) {
          at += ClampIndex(coords[t * k + d], dims[d]) * strides[d];
        }
        std::memcpy(y + t * slab, x + at * size, slab);
      }
    });
  });
  return kernel;
}

}  // namespace webnnm::backends::cpu
