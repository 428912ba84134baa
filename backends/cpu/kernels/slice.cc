// Windows and joins: slice, pad (constant, edge, reflection), concat and
// split. They move elements as raw bytes of ir::RuntimeElementSize; only
// pad's constant value is converted to the tensor's type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/common/shape_util.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/factories.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

// `value` as the bytes of one element of `dtype`: floats rounded, integers
// truncated and saturated to the type's range (NaN: 0).
void ConvertValue(double value, ir::DType dtype, std::byte* bytes) {
  Dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v{};
    if constexpr (std::is_same_v<T, Half>) {
      v.bits = FloatToHalfBits(static_cast<float>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(value);
    } else {
      double lo = ir::MinValue(dtype), hi = ir::MaxValue(dtype);
      double t = std::trunc(value);
      if (std::isnan(t)) {
        v = 0;
      } else if (t <= lo) {
        v = static_cast<T>(lo);  // exact: 0 or a power of two
      } else if (t >= hi) {
        // 2^63 - 1 and 2^64 - 1 are not doubles: saturate in the type.
        v = sizeof(T) == 8 ? std::numeric_limits<T>::max() : static_cast<T>(hi);
      } else {
        v = static_cast<T>(t);
      }
    }
    std::memcpy(bytes, &v, sizeof(T));
  });
}

// Pad by edge or reflection: after the input is copied into the interior,
// fills the padding one dimension at a time, innermost first. When
// dimension d is filled, the dimensions after it are already complete, so
// each padded position along d copies one contiguous block (the stride of
// d) from its source position; the dimensions before d run over their
// interior only.
class MirrorPadKernel : public Kernel {
 public:
  MirrorPadKernel(StridedCopy interior, const std::byte* x, std::byte* y,
                  int64_t offset, std::vector<int64_t> in,
                  std::vector<int64_t> out, std::vector<int64_t> begin,
                  bool reflect, int size)
      : interior_(std::move(interior)),
        x_(x),
        y_(y),
        offset_(offset),
        in_(std::move(in)),
        out_(std::move(out)),
        begin_(std::move(begin)),
        strides_(Strides(out_)),
        reflect_(reflect),
        size_(size),
        index_(in_.size(), 0) {}

  absl::Status Run() override {
    interior_.Run(x_, y_ + offset_ * size_);
    const int rank = static_cast<int>(in_.size());
    for (int d = rank - 1; d >= 0; --d) {
      if (out_[d] == in_[d]) continue;
      FillDimension(d);
    }
    return absl::OkStatus();
  }

 private:
  // The interior position along d that padded position p copies.
  int64_t Source(int d, int64_t p) const {
    const int64_t n = in_[d];
    int64_t i = p - begin_[d];
    if (reflect_) {
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
    }
    return std::clamp<int64_t>(i, 0, n - 1) + begin_[d];
  }

  void FillDimension(int d) {
    const size_t block = strides_[d] * size_;
    // Walk the interior of the dimensions before d.
    int64_t base = 0;
    for (int k = 0; k < d; ++k) {
      index_[k] = 0;
      base += begin_[k] * strides_[k];
    }
    while (true) {
      std::byte* slab = y_ + base * size_;
      for (int64_t p = 0; p < out_[d]; ++p) {
        if (p == begin_[d]) p += in_[d];  // skip the interior
        if (p >= out_[d]) break;
        std::memcpy(slab + p * block, slab + Source(d, p) * block, block);
      }
      int k = d - 1;
      for (; k >= 0; --k) {
        base += strides_[k];
        if (++index_[k] < in_[k]) break;
        base -= strides_[k] * in_[k];
        index_[k] = 0;
      }
      if (k < 0) break;
    }
  }

  StridedCopy interior_;
  const std::byte* x_;
  std::byte* y_;
  int64_t offset_;  // elements: the interior's start in the result
  std::vector<int64_t> in_, out_, begin_, strides_;
  bool reflect_;
  int size_;
  std::vector<int64_t> index_;
};

}  // namespace

// slice: result index i along d reads input index starts[d] + i * strides[d].
MadeKernel MakeSliceKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const size_t rank = in.size();
  std::vector<int64_t> starts = io.attrs().GetInts("starts", {});
  std::vector<int64_t> steps =
      io.attrs().GetInts("strides", std::vector<int64_t>(rank, 1));
  if (starts.size() != rank || steps.size() != rank || out.size() != rank) {
    return absl::InvalidArgumentError("slice options do not match the rank");
  }
  std::vector<int64_t> in_strides = Strides(in), src(rank);
  int64_t offset = 0;
  for (size_t d = 0; d < rank; ++d) {
    // The last element read must lie inside the input.
    if (starts[d] < 0 || steps[d] < 1 ||
        starts[d] + (out[d] - 1) * steps[d] >= in[d]) {
      return absl::InvalidArgumentError(
          StrCat("slice window runs past axis ", d));
    }
    offset += starts[d] * in_strides[d];
    src[d] = in_strides[d] * steps[d];
  }
  const int size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  StridedCopy plan(out, src, Strides(out), size);
  const std::byte* x = io.in[0] + offset * size;
  std::byte* y = io.out[0];
  return MakeFunctionKernel([plan = std::move(plan), x, y] { plan.Run(x, y); });
}

// pad: constant fills the result with `value` and copies the input inside;
// edge and reflection copy the input, then mirror it outwards.
MadeKernel MakePadKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const size_t rank = in.size();
  std::vector<int64_t> begin =
      io.attrs().GetInts("beginningPadding", std::vector<int64_t>(rank, 0));
  std::vector<int64_t> end =
      io.attrs().GetInts("endingPadding", std::vector<int64_t>(rank, 0));
  std::string mode = io.attrs().GetString("mode", "constant");
  if (begin.size() != rank || end.size() != rank || out.size() != rank) {
    return absl::InvalidArgumentError("pad options do not match the rank");
  }
  for (size_t d = 0; d < rank; ++d) {
    if (begin[d] < 0 || end[d] < 0 || in[d] + begin[d] + end[d] != out[d]) {
      return absl::InvalidArgumentError("pad result has the wrong shape");
    }
    if (mode == "reflection" && (begin[d] >= in[d] || end[d] >= in[d])) {
      return absl::InvalidArgumentError(
          "reflection padding must be smaller than the dimension");
    }
  }
  const ir::DType dtype = io.in_types[0]->dtype;
  const int size = ir::RuntimeElementSize(dtype);
  std::vector<int64_t> out_strides = Strides(out);
  int64_t offset = 0;
  for (size_t d = 0; d < rank; ++d) offset += begin[d] * out_strides[d];
  StridedCopy interior(in, Strides(in), out_strides, size);
  const std::byte* x = io.in[0];
  std::byte* y = io.out[0];
  if (mode == "constant") {
    std::byte value[8] = {};
    ConvertValue(io.attrs().GetFloat("value", 0.0), dtype, value);
    const int64_t count = ElementCount(out);
    std::byte* inside = y + offset * size;
    return MakeFunctionKernel(
        [interior = std::move(interior), x, y, inside, count, size, value] {
          FillElements(y, count, value, size);
          interior.Run(x, inside);
        });
  }
  if (mode != "edge" && mode != "reflection") {
    return absl::InvalidArgumentError(StrCat("unknown pad mode ", mode));
  }
  return std::make_unique<MirrorPadKernel>(std::move(interior), x, y, offset,
                                           in, out, std::move(begin),
                                           mode == "reflection", size);
}

namespace {

// Concat of equal slabs of W 32-bit words each (a max-pooling gradient
// interleaves single elements): word copies the compiler unrolls instead of
// a memcpy call, or a oneDNN call, per slab.
template <int W>
MadeKernel InterleaveWords(std::vector<const std::byte*> inputs, std::byte* y,
                           int64_t outer) {
  if (inputs.size() == 2) {  // two inputs: a loop the compiler vectorizes
    const uint32_t* a = reinterpret_cast<const uint32_t*>(inputs[0]);
    const uint32_t* b = reinterpret_cast<const uint32_t*>(inputs[1]);
    uint32_t* out = reinterpret_cast<uint32_t*>(y);
    return MakeFunctionKernel([=] {
      for (int64_t o = 0; o < outer; ++o) {
        for (int w = 0; w < W; ++w) {
          out[o * 2 * W + w] = a[o * W + w];
          out[o * 2 * W + W + w] = b[o * W + w];
        }
      }
    });
  }
  return MakeFunctionKernel([inputs = std::move(inputs), y, outer] {
    const size_t n = inputs.size();
    uint32_t* out = reinterpret_cast<uint32_t*>(y);
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < n; ++k) {
        const uint32_t* in = reinterpret_cast<const uint32_t*>(inputs[k]);
        for (int w = 0; w < W; ++w) *out++ = in[o * W + w];
      }
    }
  });
}

}  // namespace

// The smallest slab (bytes) that concat copies with memcpy rather than
// oneDNN.
constexpr size_t kMemcpySlab = 256;

// concat: for each index before `axis`, the inputs' slabs one after another.
MadeKernel MakeConcatKernel(const KernelIO& io) {
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const int axis = static_cast<int>(io.attrs().GetInt("axis", 0));
  if (axis < 0 || axis >= static_cast<int>(out.size())) {
    return absl::InvalidArgumentError("concat axis out of range");
  }
  const int size = ir::RuntimeElementSize(io.out_types[0]->dtype);
  const int64_t outer = Outer(out, axis);
  std::vector<const std::byte*> inputs;
  std::vector<size_t> slabs;  // bytes per outer index, per input
  size_t total = 0;
  for (size_t k = 0; k < io.in.size(); ++k) {
    if (!io.has(k)) continue;
    const std::vector<int64_t>& shape = io.in_types[k]->shape;
    if (shape.size() != out.size() || Outer(shape, axis) != outer) {
      return absl::InvalidArgumentError("concat input shapes do not match");
    }
    inputs.push_back(io.in[k]);
    slabs.push_back(static_cast<size_t>(Inner(shape, axis)) * size);
    total += slabs.back();
  }
  if (total != static_cast<size_t>(Inner(out, axis)) * size) {
    return absl::InvalidArgumentError("concat result has the wrong shape");
  }
  std::byte* y = io.out[0];
  const bool equal_slabs =
      !slabs.empty() && std::all_of(slabs.begin(), slabs.end(),
                                    [&](size_t b) { return b == slabs[0]; });
  if (equal_slabs && size >= 4 && slabs[0] % 4 == 0) {  // words aligned
    switch (slabs[0] / 4) {
      case 1:
        return InterleaveWords<1>(inputs, y, outer);
      case 2:
        return InterleaveWords<2>(inputs, y, outer);
      case 4:
        return InterleaveWords<4>(inputs, y, outer);
      default:
        break;
    }
  }
  // Slabs of a few hundred bytes and more are a memcpy each at memory
  // speed; oneDNN's byte-matrix concat moved 28 slabs of 64 KB at a
  // twentieth of it (an unrolled LSTM's gradient, 2.8 ms for 1.8 MB).
  const size_t smallest =
      slabs.empty() ? 0 : *std::min_element(slabs.begin(), slabs.end());
  if (smallest < kMemcpySlab) {
    if (auto kernel = TryDnnlConcat(io)) return kernel;
  }
  return MakeFunctionKernel([=] {
    std::byte* p = y;
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        std::memcpy(p, inputs[k] + o * slabs[k], slabs[k]);
        p += slabs[k];
      }
    }
  });
}

// split: the reverse of concat, one result per piece.
MadeKernel MakeSplitKernel(const KernelIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int axis = static_cast<int>(io.attrs().GetInt("axis", 0));
  if (axis < 0 || axis >= static_cast<int>(in.size())) {
    return absl::InvalidArgumentError("split axis out of range");
  }
  const int size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  const int64_t outer = Outer(in, axis);
  std::vector<size_t> slabs;
  size_t total = 0;
  for (size_t k = 0; k < io.out.size(); ++k) {
    const std::vector<int64_t>& shape = io.out_types[k]->shape;
    if (shape.size() != in.size() || Outer(shape, axis) != outer) {
      return absl::InvalidArgumentError("split result shapes do not match");
    }
    slabs.push_back(static_cast<size_t>(Inner(shape, axis)) * size);
    total += slabs.back();
  }
  if (total != static_cast<size_t>(Inner(in, axis)) * size) {
    return absl::InvalidArgumentError("split pieces do not cover the input");
  }
  const std::byte* x = io.in[0];
  std::vector<std::byte*> outputs = io.out;
  return MakeFunctionKernel([=] {
    const std::byte* p = x;
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < outputs.size(); ++k) {
        std::memcpy(outputs[k] + o * slabs[k], p, slabs[k]);
        p += slabs[k];
      }
    }
  });
}

}  // namespace webnnm::backends::cpu
