// Layout operations: reshape (a copy of the bytes), expand, transpose,
// tile, reverse and triangular. All move elements as raw bytes of
// ir::RuntimeElementSize, so every data type shares one code path; the
// index arithmetic is planned at compile time (StridedCopy) and the inner
// loops copy contiguous runs with memcpy where the layout allows.
#include <algorithm>
#include <cstring>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

int ElementSize(const KernelIO& io) {
  return ir::RuntimeElementSize(io.in_types[0]->dtype);
}

size_t ByteCount(const ir::TensorType& type) {
  return static_cast<size_t>(ElementCount(type.shape)) *
         ir::RuntimeElementSize(type.dtype);
}

// A kernel copying the input's view `src_strides` (starting `src_offset`
// elements in) onto the result, iterated over the result's shape.
std::unique_ptr<Kernel> ViewCopy(const KernelIO& io,
                                 const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& src_strides,
                                 const std::vector<int64_t>& dst_strides,
                                 int64_t src_offset) {
  const int size = ElementSize(io);
  StridedCopy plan(shape, src_strides, dst_strides, size);
  const std::byte* x = io.in[0] + src_offset * size;
  std::byte* y = io.out[0];
  return MakeFunctionKernel([plan = std::move(plan), x, y] { plan.Run(x, y); });
}

}  // namespace

// reshape: the same bytes.
MadeKernel MakeCopyKernel(const KernelIO& io) {
  const size_t bytes = ByteCount(*io.out_types[0]);
  if (bytes != ByteCount(*io.in_types[0])) {
    return absl::InvalidArgumentError("reshape changes the element count");
  }
  const std::byte* x = io.in[0];
  std::byte* y = io.out[0];
  return MakeFunctionKernel([=] { std::memcpy(y, x, bytes); });
}

// expand: numpy broadcasting of the input to the result's shape.
MadeKernel MakeExpandKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  if (in.size() > out.size()) {
    return absl::InvalidArgumentError("expand lowers the rank");
  }
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t o = out[out.size() - in.size() + i];
    if (in[i] != o && in[i] != 1) {
      return absl::InvalidArgumentError("expand shapes do not broadcast");
    }
  }
  return ViewCopy(io, out, BroadcastStrides(in, out), Strides(out), 0);
}

// transpose: result dimension i is input dimension permutation[i].
MadeKernel MakeTransposeKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> reversed(rank);
  for (int i = 0; i < rank; ++i) reversed[i] = rank - 1 - i;
  std::vector<int64_t> perm = io.attrs().GetInts("permutation", reversed);
  if (static_cast<int>(perm.size()) != rank) {
    return absl::InvalidArgumentError("transpose permutation has a bad size");
  }
  std::vector<int64_t> in_strides = Strides(in);
  std::vector<int64_t> src(rank), shape(rank);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) {
      return absl::InvalidArgumentError("transpose permutation is invalid");
    }
    seen[perm[i]] = true;
    src[i] = in_strides[perm[i]];
    shape[i] = in[perm[i]];
  }
  if (shape != io.out_types[0]->shape) {
    return absl::InvalidArgumentError("transpose result has the wrong shape");
  }
  if (auto kernel = TryDnnlTranspose(io, src)) return kernel;
  return ViewCopy(io, shape, src, Strides(shape), 0);
}

// tile: result index i along dimension d reads input index i % in[d]. Each
// dimension splits into (repeat, position) with input strides (0, own).
MadeKernel MakeTileKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  if (in.size() != out.size()) {
    return absl::InvalidArgumentError("tile changes the rank");
  }
  std::vector<int64_t> in_strides = Strides(in), out_strides = Strides(out);
  std::vector<int64_t> shape, src, dst;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] <= 0 || out[d] % in[d] != 0) {
      return absl::InvalidArgumentError("tile result has the wrong shape");
    }
    shape.push_back(out[d] / in[d]);
    src.push_back(0);
    dst.push_back(in[d] * out_strides[d]);
    shape.push_back(in[d]);
    src.push_back(in_strides[d]);
    dst.push_back(out_strides[d]);
  }
  return ViewCopy(io, shape, src, dst, 0);
}

// reverse: the input read backwards along `axes` (default: all).
MadeKernel MakeReverseKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> all(rank);
  for (int i = 0; i < rank; ++i) all[i] = i;
  std::vector<int64_t> axes = io.attrs().GetInts("axes", all);
  std::vector<int64_t> src = Strides(in);
  std::vector<bool> flipped(rank, false);
  int64_t offset = 0;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError("reverse axis out of range");
    }
    if (flipped[axis]) continue;  // the rule rejects repeats; be safe
    flipped[axis] = true;
    offset += (in[axis] - 1) * src[axis];
    src[axis] = -src[axis];
  }
  return ViewCopy(io, in, src, Strides(in), offset);
}

// triangular: in each matrix of the last two dimensions, keeps the elements
// with column - row >= diagonal (upper) or <= diagonal (lower) and zeroes
// the others (all-zero bytes are 0 in every data type).
MadeKernel MakeTriangularKernel(const KernelIO& io) {
  const std::vector<int64_t>& shape = io.in_types[0]->shape;
  if (shape.size() < 2) {
    return absl::InvalidArgumentError("triangular needs rank 2 or more");
  }
  const bool upper = io.attrs().GetBool("upper", true);
  const int64_t rows = shape[shape.size() - 2];
  const int64_t cols = shape[shape.size() - 1];
  // Beyond these bounds every row is wholly kept or wholly zeroed.
  const int64_t diagonal = std::clamp<int64_t>(io.attrs().GetInt("diagonal", 0),
                                               -(rows + 1), cols + 1);
  const int64_t matrices = ElementCount(shape) / (rows * cols);
  const size_t size = ElementSize(io);
  const std::byte* x = io.in[0];
  std::byte* y = io.out[0];
  return MakeFunctionKernel([=] {
    const size_t row_bytes = cols * size;
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        const size_t at = (m * rows + i) * row_bytes;
        // Kept columns [lo, hi).
        int64_t lo = 0, hi = cols;
        if (upper) {
          lo = std::clamp<int64_t>(i + diagonal, 0, cols);
        } else {
          hi = std::clamp<int64_t>(i + diagonal + 1, 0, cols);
        }
        std::memset(y + at, 0, lo * size);
        std::memcpy(y + at + lo * size, x + at + lo * size, (hi - lo) * size);
        std::memset(y + at + hi * size, 0, (cols - hi) * size);
      }
    }
  });
}

}  // namespace webnnm::backends::cpu
