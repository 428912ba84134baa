#include "backends/vulkan/row_split.h"

#include <algorithm>
#include <deque>

#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::optional<std::vector<bool>> RowAligned(const OpIO& io) {
  const ir::Attrs& a = io.attrs();
  if (io.in_types.empty() || io.in_types[0] == nullptr) return std::nullopt;
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  if (rank < 2) return std::nullopt;  // rows of what remains
  for (const ir::TensorType* t : io.out_types) {
    if (t->shape.empty() || t->shape[0] != in[0]) return std::nullopt;
  }
  std::vector<bool> split(io.in_types.size(), false);
  split[0] = true;
  const int64_t last = rank - 1;
  switch (io.node.op->kind) {
    case K::kSoftmax:
    case K::kArgMax:
    case K::kArgMin:
    case K::kCumulativeSum: {
      const int64_t axis =
          a.GetInt("axis", io.node.op->kind == K::kSoftmax ? last : int64_t{0});
      if (axis == 0) return std::nullopt;
      return split;
    }
    case K::kLayerNormalization: {
      std::vector<int64_t> axes;
      for (int64_t d = 1; d < rank; ++d) axes.push_back(d);
      if (Contains(a.GetInts("axes", axes), 0)) return std::nullopt;
      return split;
    }
    case K::kInstanceNormalization:
    case K::kBatchNormalization:
      // Batch normalization here normalizes with given statistics: rows
      // are independent (its channel axis must not be 0).
      if (io.node.op->kind == K::kBatchNormalization &&
          a.GetInt("axis", 1) == 0) {
        return std::nullopt;
      }
      return split;
    case K::kReduceSum:
    case K::kReduceMean:
    case K::kReduceMax:
    case K::kReduceMin:
    case K::kReduceProduct:
    case K::kReduceL1:
    case K::kReduceL2:
    case K::kReduceLogSum:
    case K::kReduceLogSumExp:
    case K::kReduceSumSquare: {
      std::vector<int64_t> all;
      for (int64_t d = 0; d < rank; ++d) all.push_back(d);
      if (Contains(a.GetInts("axes", all), 0)) return std::nullopt;
      return split;
    }
    case K::kConv2d:
    case K::kConvTranspose2d:
    case K::kAveragePool2d:
    case K::kMaxPool2d:
    case K::kL2Pool2d:
      return split;  // the batch; filter and bias whole
    case K::kResample2d:
      if (Contains(a.GetInts("axes", {2, 3}), 0)) return std::nullopt;
      return split;
    case K::kMatmul: {
      // [.., M, K] x [.., K, N]: a 2-D first operand splits by rows of M;
      // batched ones by the leading batch dimension, the second operand
      // with it when it has that dimension too.
      const std::vector<int64_t>& b = io.in_types[1]->shape;
      if (rank > 2 && b.size() == in.size() && b[0] == in[0] && in[0] > 1) {
        split[1] = true;
      }
      return split;
    }
    case K::kGemm: {
      if (a.GetBool("aTranspose", false)) return std::nullopt;
      // gemm's C operand splits with the rows when it has them.
      if (io.in_types.size() > 2 && io.in_types[2] != nullptr) {
        const std::vector<int64_t>& c = io.in_types[2]->shape;
        if (c.size() == 2 && c[0] == in[0] && in[0] > 1) split[2] = true;
      }
      return split;
    }
    default:
      return std::nullopt;
  }
}

absl::StatusOr<std::vector<Dispatch>> PlanByRows(
    const OpIO& io, Planner planner, const std::vector<bool>& split) {
  const int64_t rows = io.out_types[0]->shape[0];
  // Bytes per row of each split tensor; the chunk is the most rows that
  // keep every split binding within the limit and every chunk aligned.
  std::vector<uint64_t> in_row(io.in.size(), 0), out_row(io.out.size(), 0);
  uint64_t widest = 0;
  for (size_t i = 0; i < io.in.size(); ++i) {
    if (io.in_types[i] == nullptr) continue;
    if (!split[i]) {
      if (io.in[i].bytes > io.max_range) {
        return absl::ResourceExhaustedError(
            StrCat("operand ", i, " (", io.in[i].bytes,
                   " bytes) exceeds the device's maxStorageBufferRange of ",
                   io.max_range, " bytes and does not split with the rows"));
      }
      continue;
    }
    in_row[i] = io.in[i].bytes / static_cast<uint64_t>(rows);
    widest = std::max(widest, in_row[i]);
  }
  for (size_t i = 0; i < io.out.size(); ++i) {
    out_row[i] = io.out[i].bytes / static_cast<uint64_t>(rows);
    widest = std::max(widest, out_row[i]);
  }
  int64_t step = 1;  // rows whose bytes are a multiple of the alignment
  auto aligned = [&](int64_t n) {
    for (size_t i = 0; i < io.in.size(); ++i) {
      if (in_row[i] * n % io.alignment != 0) return false;
    }
    for (size_t i = 0; i < io.out.size(); ++i) {
      if (out_row[i] * n % io.alignment != 0) return false;
    }
    return true;
  };
  while (step <= rows && !aligned(step)) ++step;
  int64_t chunk =
      static_cast<int64_t>(io.max_range / std::max<uint64_t>(widest, 1));
  chunk = chunk / step * step;
  if (chunk < 1 || step > rows) {
    return absl::ResourceExhaustedError(StrCat(
        "a tensor exceeds the device's maxStorageBufferRange of ", io.max_range,
        " bytes, and ", step, " aligned rows of it do not fit one binding"));
  }
  std::vector<Dispatch> result;
  for (int64_t first = 0; first < rows; first += chunk) {
    const int64_t count = std::min(chunk, rows - first);
    std::deque<ir::TensorType> types;  // stable addresses
    OpIO part = io;
    for (size_t i = 0; i < io.in.size(); ++i) {
      if (io.in_types[i] == nullptr || !split[i]) continue;
      types.push_back(*io.in_types[i]);
      types.back().shape[0] = count;
      part.in_types[i] = &types.back();
      part.in[i] = {io.in[i].offset + in_row[i] * static_cast<uint64_t>(first),
                    in_row[i] * static_cast<uint64_t>(count)};
    }
    for (size_t i = 0; i < io.out.size(); ++i) {
      types.push_back(*io.out_types[i]);
      types.back().shape[0] = count;
      part.out_types[i] = &types.back();
      part.out[i] = {
          io.out[i].offset + out_row[i] * static_cast<uint64_t>(first),
          out_row[i] * static_cast<uint64_t>(count)};
    }
    absl::StatusOr<std::vector<Dispatch>> planned = planner(part);
    if (!planned.ok()) return planned.status();
    for (Dispatch& d : *planned) result.push_back(std::move(d));
  }
  return result;
}

}  // namespace webnnm::backends::vulkan
