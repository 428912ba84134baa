// Data movement as strided copies of 32-bit words (copy.comp; a 64-bit
// element is two): reshape, identity, transpose, expand, slice, reverse,
// concat and split. Each is one copy per operand or result (several for
// tensors past one binding), its strides chosen so that the copy walks the
// result's coordinates.
#include <algorithm>
#include <utility>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

// One dispatch of copy.comp: `shape` words x[in_base + Σ c·in_stride] to
// y[out_base + Σ c·out_stride], `from` and `to` bound as they are.
absl::StatusOr<Dispatch> CopyDispatch(const OpIO& io, Range from, Range to,
                                      const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& in_stride,
                                      const std::vector<int64_t>& out_stride,
                                      int64_t in_base, int64_t out_base) {
  const int rank = static_cast<int>(shape.size());
  // kMaxRank dimensions, and the two words of a 64-bit element.
  if (absl::Status s = CheckRank(shape.size(), kCopyRank); !s.ok()) return s;
  const int64_t n = Count(shape);
  Dispatch d;
  d.shader = &CopyShader();
  d.bindings = {from, to};
  d.push = {Word(n), Word(int64_t{rank}), Word(in_base), Word(out_base)};
  for (int k = 0; k < kCopyRank; ++k)
    d.push.push_back(Word(k < rank ? shape[k] : 1));
  for (int k = 0; k < kCopyRank; ++k)
    d.push.push_back(Word(k < rank ? in_stride[k] : 0));
  for (int k = 0; k < kCopyRank; ++k)
    d.push.push_back(Word(k < rank ? out_stride[k] : 0));
  d.groups[0] = GridGroups(n, 256, io.max_groups);
  return d;
}

// The first and last word a walk over `shape` with `stride` from `base`
// touches, for rows [first, first + count) of dimension 0.
std::pair<int64_t, int64_t> Span(const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& stride,
                                 int64_t base, int64_t first, int64_t count) {
  int64_t lo = base + first * stride[0], hi = lo;
  const int64_t last0 = (count - 1) * stride[0];
  lo += std::min<int64_t>(0, last0);
  hi += std::max<int64_t>(0, last0);
  for (size_t d = 1; d < shape.size(); ++d) {
    const int64_t reach = (shape[d] - 1) * stride[d];
    lo += std::min<int64_t>(0, reach);
    hi += std::max<int64_t>(0, reach);
  }
  return {lo, hi};
}

// Copies `shape` elements: x[in_base + Σ c·in_stride] to
// y[out_base + Σ c·out_stride]. A 64-bit element is two words: the copy
// gets an inner dimension of 2. Tensors past one binding are copied in
// chunks of rows of dimension 0, each side bound from the aligned start of
// the words the chunk touches (ResourceExhausted when one row's words on a
// side do not fit a binding, as for a transpose that gathers columns).
absl::StatusOr<std::vector<Dispatch>> Copy(const OpIO& io, Range from, Range to,
                                           std::vector<int64_t> shape,
                                           std::vector<int64_t> in_stride,
                                           std::vector<int64_t> out_stride,
                                           int64_t in_base, int64_t out_base) {
  if (ElementWords(io.out_types[0]->dtype) == 2) {
    for (int64_t& s : in_stride) s *= 2;
    for (int64_t& s : out_stride) s *= 2;
    in_base *= 2;
    out_base *= 2;
    shape.push_back(2);
    in_stride.push_back(1);
    out_stride.push_back(1);
  }
  if (from.bytes <= io.max_range && to.bytes <= io.max_range) {
    ASSIGN_OR_RETURN(Dispatch d, CopyDispatch(io, from, to, shape, in_stride,
                                              out_stride, in_base, out_base));
    return std::vector<Dispatch>{std::move(d)};
  }
  const int64_t align = static_cast<int64_t>(io.alignment / 4);  // words
  const int64_t limit = static_cast<int64_t>(io.max_range / 4);
  // A side's binding for rows [first, first + count): from the aligned
  // start of the words they touch to the last; empty when too large.
  auto bind = [&](Range whole, const std::vector<int64_t>& stride, int64_t base,
                  int64_t first, int64_t count, int64_t& start) {
    auto [lo, hi] = Span(shape, stride, base, first, count);
    start = lo / align * align;
    return hi + 1 - start <= limit
               ? Range{whole.offset + static_cast<uint64_t>(start) * 4,
                       static_cast<uint64_t>(hi + 1 - start) * 4}
               : Range{};
  };
  const int64_t rows = shape[0];
  std::vector<Dispatch> result;
  for (int64_t first = 0; first < rows;) {
    int64_t count = rows - first, in_start = 0, out_start = 0;
    Range in_part, out_part;
    for (; count >= 1; count /= 2) {  // halve until both sides fit
      in_part = bind(from, in_stride, in_base, first, count, in_start);
      out_part = bind(to, out_stride, out_base, first, count, out_start);
      if (in_part.bytes > 0 && out_part.bytes > 0) break;
    }
    if (count < 1) {
      return absl::ResourceExhaustedError(
          StrCat("a tensor exceeds the device's maxStorageBufferRange of ",
                 io.max_range,
                 " bytes, and one row of this copy reaches across "
                 "more than that"));
    }
    std::vector<int64_t> part = shape;
    part[0] = count;
    ASSIGN_OR_RETURN(
        Dispatch d,
        CopyDispatch(io, in_part, out_part, part, in_stride, out_stride,
                     in_base + first * in_stride[0] - in_start,
                     out_base + first * out_stride[0] - out_start));
    result.push_back(std::move(d));
    first += count;
  }
  return result;
}

}  // namespace

Dispatch FlatCopy(const OpIO& io, Range from, Range to, int64_t words) {
  // One dimension: CopyDispatch cannot fail.
  return *CopyDispatch(io, from, to, {words}, {1}, {1}, 0, 0);
}

absl::StatusOr<std::vector<Dispatch>> PlanMovement(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const std::vector<int64_t> in_strides = Strides(in),
                             out_strides = Strides(out);
  const int rank = static_cast<int>(out.size());
  const ir::Attrs& a = io.attrs();
  switch (io.node.op->kind) {
    case K::kReshape:
    case K::kIdentity: {
      const int64_t n = Count(out);
      return Copy(io, io.in[0], io.out[0], {n}, {1}, {1}, 0, 0);
    }
    case K::kTranspose: {
      std::vector<int64_t> reversed(rank);
      for (int d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
      std::vector<int64_t> perm = a.GetInts("permutation", reversed);
      if (static_cast<int>(perm.size()) != rank) {
        return absl::InvalidArgumentError(
            "the permutation does not match the rank");
      }
      std::vector<int64_t> stride(rank);
      for (int d = 0; d < rank; ++d) {
        if (perm[d] < 0 || perm[d] >= rank) {
          return absl::InvalidArgumentError("permutation out of range");
        }
        stride[d] = in_strides[perm[d]];
      }
      return Copy(io, io.in[0], io.out[0], out, stride, out_strides, 0, 0);
    }
    case K::kExpand: {
      std::vector<int64_t> stride = BroadcastStrides(in, out);
      stride.resize(rank);
      return Copy(io, io.in[0], io.out[0], out, stride, out_strides, 0, 0);
    }
    case K::kSlice: {
      std::vector<int64_t> starts = a.GetInts("starts", {});
      std::vector<int64_t> steps =
          a.GetInts("strides", std::vector<int64_t>(rank, 1));
      if (static_cast<int>(starts.size()) != rank ||
          static_cast<int>(steps.size()) != rank) {
        return absl::InvalidArgumentError(
            "slice options do not match the rank");
      }
      int64_t base = 0;
      std::vector<int64_t> stride(rank);
      for (int d = 0; d < rank; ++d) {
        if (starts[d] < 0 || steps[d] < 1 ||
            starts[d] + (out[d] - 1) * steps[d] >= in[d]) {
          return absl::InvalidArgumentError(
              StrCat("slice window runs past axis ", d));
        }
        base += starts[d] * in_strides[d];
        stride[d] = in_strides[d] * steps[d];
      }
      return Copy(io, io.in[0], io.out[0], out, stride, out_strides, base, 0);
    }
    case K::kReverse: {
      std::vector<int64_t> all(rank);
      for (int d = 0; d < rank; ++d) all[d] = d;
      std::vector<int64_t> stride = in_strides;
      int64_t base = 0;
      std::vector<bool> seen(rank, false);
      for (int64_t axis : a.GetInts("axes", all)) {
        if (axis < 0 || axis >= rank || seen[axis]) {
          return absl::InvalidArgumentError(StrCat("bad reverse axis ", axis));
        }
        seen[axis] = true;
        base += (in[axis] - 1) * in_strides[axis];
        stride[axis] = -in_strides[axis];
      }
      return Copy(io, io.in[0], io.out[0], out, stride, out_strides, base, 0);
    }
    case K::kConcat: {
      const int axis = static_cast<int>(a.GetInt("axis", 0));
      if (axis < 0 || axis >= rank) {
        return absl::InvalidArgumentError("concat axis out of range");
      }
      std::vector<Dispatch> result;
      int64_t at = 0;
      for (size_t k = 0; k < io.in_types.size(); ++k) {
        if (io.in_types[k] == nullptr) continue;
        const std::vector<int64_t>& shape = io.in_types[k]->shape;
        ASSIGN_OR_RETURN(std::vector<Dispatch> d,
                         Copy(io, io.in[k], io.out[0], shape, Strides(shape),
                              out_strides, 0, at * out_strides[axis]));
        for (Dispatch& x : d) result.push_back(std::move(x));
        at += shape[axis];
      }
      return result;
    }
    case K::kSplit: {
      const int axis = static_cast<int>(a.GetInt("axis", 0));
      if (axis < 0 || axis >= static_cast<int>(in.size())) {
        return absl::InvalidArgumentError("split axis out of range");
      }
      std::vector<Dispatch> result;
      int64_t at = 0;
      for (size_t k = 0; k < io.out_types.size(); ++k) {
        const std::vector<int64_t>& shape = io.out_types[k]->shape;
        ASSIGN_OR_RETURN(std::vector<Dispatch> d,
                         Copy(io, io.in[0], io.out[k], shape, in_strides,
                              Strides(shape), at * in_strides[axis], 0));
        for (Dispatch& x : d) result.push_back(std::move(x));
        at += shape[axis];
      }
      return result;
    }
    default:
      return absl::UnimplementedError(
          StrCat("no vulkan movement kernel for ", io.node.op->name));
  }
}

}  // namespace webnnm::backends::vulkan
