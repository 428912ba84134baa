// Scatters: scatterElements and scatterND copy the input, then write the
// updates at the positions the indices give. Indices are clamped exactly as
// the gathers clamp them (negative values count from the end, the rest is
// clamped into range), so nothing is ever written out of bounds; where two
// updates land on one position the later one (in row-major order) wins.
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

size_t ByteCount(const ir::TensorType& type) {
  return static_cast<size_t>(ElementCount(type.shape)) *
         ir::RuntimeElementSize(type.dtype);
}

// scatterElements with index type I and element size S.
template <typename I, int S>
class ScatterElementsKernel : public Kernel {
 public:
  ScatterElementsKernel(const KernelIO& io, int axis)
      : x_(io.in[0]),
        indices_(reinterpret_cast<const I*>(io.in[1])),
        updates_(io.in[2]),
        y_(io.out[0]),
        bytes_(ByteCount(*io.in_types[0])),
        shape_(io.in_types[1]->shape),
        strides_(Strides(io.in_types[0]->shape)),
        axis_stride_(strides_[axis]),
        axis_size_(io.in_types[0]->shape[axis]),
        index_(shape_.size(), 0) {
    strides_[axis] = 0;  // the index supplies this coordinate
  }

  absl::Status Run() override {
    std::memcpy(y_, x_, bytes_);
    const int last = static_cast<int>(shape_.size()) - 1;
    const int64_t n = shape_[last];
    const int64_t row_stride = strides_[last];
    const int64_t rows = ElementCount(shape_) / n;
    for (int d = 0; d < last; ++d) index_[d] = 0;
    int64_t base = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t p = r * n;
      for (int64_t i = 0; i < n; ++i) {
        int64_t at = base + i * row_stride +
                     ClampIndex(indices_[p + i], axis_size_) * axis_stride_;
        CopyElement<S>(y_ + at * S, updates_ + (p + i) * S);
      }
      for (int d = last - 1; d >= 0; --d) {
        base += strides_[d];
        if (++index_[d] < shape_[d]) break;
        base -= strides_[d] * shape_[d];
        index_[d] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  const std::byte* x_;
  const I* indices_;
  const std::byte* updates_;
  std::byte* y_;
  size_t bytes_;
  std::vector<int64_t> shape_;    // the indices' (and updates') shape
  std::vector<int64_t> strides_;  // the input's, 0 along the axis
  int64_t axis_stride_, axis_size_;
  std::vector<int64_t> index_;
};

}  // namespace

// scatterElements: y = x, then y[..., clamp(indices[..., i, ...]), ...] =
// updates[..., i, ...] along `axis`.
MadeKernel MakeScatterElementsKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& indices = io.in_types[1]->shape;
  const int rank = static_cast<int>(in.size());
  const int axis = static_cast<int>(io.attrs().GetInt("axis", 0));
  if (axis < 0 || axis >= rank) {
    return absl::InvalidArgumentError("scatterElements axis out of range");
  }
  if (static_cast<int>(indices.size()) != rank ||
      io.in_types[2]->shape != indices || io.out_types[0]->shape != in) {
    return absl::InvalidArgumentError("scatterElements shapes do not match");
  }
  for (int d = 0; d < rank; ++d) {
    if (d != axis && indices[d] > in[d]) {
      return absl::InvalidArgumentError(
          "scatterElements indices exceed the input");
    }
  }
  MadeKernel kernel = BadIndexType(io);
  DispatchIndex(io.in_types[1]->dtype, [&](auto tag) {
    using I = typename decltype(tag)::type;
    DispatchSize(ir::RuntimeElementSize(io.in_types[0]->dtype), [&](auto s) {
      kernel = std::make_unique<ScatterElementsKernel<I, decltype(s)::value>>(
          io, axis);
    });
  });
  return kernel;
}

// scatterND: y = x, then for each coordinate t (the last dimension of the
// indices, k long) the slab y[clamp(indices[t]), ...] = updates[t, ...].
MadeKernel MakeScatterNDKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& indices = io.in_types[1]->shape;
  if (indices.empty() || indices.back() < 1 ||
      indices.back() > static_cast<int64_t>(in.size()) ||
      io.out_types[0]->shape != in) {
    return absl::InvalidArgumentError("scatterND coordinates do not fit");
  }
  const int k = static_cast<int>(indices.back());
  const int64_t tuples = ElementCount(indices) / k;
  std::vector<int64_t> dims(in.begin(), in.begin() + k);
  std::vector<int64_t> strides = Strides(in);
  strides.resize(k);
  int64_t inner = 1;
  for (size_t d = k; d < in.size(); ++d) inner *= in[d];
  if (tuples * inner != ElementCount(io.in_types[2]->shape)) {
    return absl::InvalidArgumentError("scatterND updates have the wrong shape");
  }
  const int size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  const size_t slab = inner * size;
  const size_t bytes = ByteCount(*io.in_types[0]);
  const std::byte* x = io.in[0];
  const std::byte* updates = io.in[2];
  std::byte* y = io.out[0];
  MadeKernel kernel = BadIndexType(io);
  DispatchIndex(io.in_types[1]->dtype, [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* coords = reinterpret_cast<const I*>(io.in[1]);
    kernel = MakeFunctionKernel([=] {
      std::memcpy(y, x, bytes);
      for (int64_t t = 0; t < tuples; ++t) {
        int64_t at = 0;
        for (int d = 0; d < k; ++d) {
          at += ClampIndex(coords[t * k + d], dims[d]) * strides[d];
        }
        std::memcpy(y + at * size, updates + t * slab, slab);
      }
    });
  });
  return kernel;
}

}  // namespace webnnm::backends::cpu
