// Element-wise operations: one operand (unary.comp; math and activations)
// and two with broadcasting (binary.comp), float32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

// unary.comp's OP numbers.
int UnaryCode(K op) {
  switch (op) {
    case K::kIdentity:
      return 0;
    case K::kAbs:
      return 1;
    case K::kNeg:
      return 2;
    case K::kSign:
      return 3;
    case K::kRelu:
      return 4;
    case K::kSigmoid:
      return 5;
    case K::kTanh:
      return 6;
    case K::kExp:
      return 7;
    case K::kLog:
      return 8;
    case K::kSqrt:
      return 9;
    case K::kReciprocal:
      return 10;
    case K::kCeil:
      return 11;
    case K::kFloor:
      return 12;
    case K::kSin:
      return 13;
    case K::kCos:
      return 14;
    case K::kTan:
      return 15;
    case K::kErf:
      return 16;
    case K::kRoundEven:
      return 17;
    case K::kSoftsign:
      return 18;
    case K::kSoftplus:
      return 19;
    case K::kElu:
      return 20;
    case K::kLeakyRelu:
      return 21;
    case K::kHardSigmoid:
      return 22;
    case K::kHardSwish:
      return 23;
    case K::kGelu:
      return 24;
    case K::kLinear:
      return 25;
    case K::kClamp:
      return 26;
    default:
      return -1;
  }
}

// binary.comp's OP numbers.
int BinaryCode(K op) {
  switch (op) {
    case K::kAdd:
      return 0;
    case K::kSub:
      return 1;
    case K::kMul:
      return 2;
    case K::kDiv:
      return 3;
    case K::kMax:
      return 4;
    case K::kMin:
      return 5;
    case K::kPow:
      return 6;
    case K::kPrelu:
      return 7;
    default:
      return -1;
  }
}

}  // namespace

// The shaders' TYPE: 0 float32, 1 int32, 2 uint32, 3 int64, 4 uint64.
uint32_t TypeCode(ir::DType t) {
  switch (t) {
    case ir::DType::kInt32:
      return 1;
    case ir::DType::kUint32:
      return 2;
    case ir::DType::kInt64:
      return 3;
    case ir::DType::kUint64:
      return 4;
    default:
      return 0;
  }
}

// An integer clamp bound: `v` truncated and saturated to the type (TYPE
// 1..4), as two's complement bits.
uint64_t BoundBits(double v, uint32_t type) {
  v = std::trunc(v != v ? 0 : v);
  switch (type) {
    case 1:
      return static_cast<uint32_t>(
          static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0)));
    case 2:
      return static_cast<uint32_t>(std::clamp(v, 0.0, 4294967295.0));
    case 3:
      if (v >= 9223372036854775807.0) return 0x7fffffffffffffffull;
      if (v <= -9223372036854775808.0) return 0x8000000000000000ull;
      return static_cast<uint64_t>(static_cast<int64_t>(v));
    default:
      if (v >= 18446744073709551615.0) return ~0ull;
      return static_cast<uint64_t>(std::max(v, 0.0));
  }
}

bool IsUnaryFloat(K op) { return UnaryCode(op) >= 0; }
bool IsBinaryFloat(K op) { return BinaryCode(op) >= 0; }
bool HasFloat16Variant(K op) { return IsUnaryFloat(op) || IsBinaryFloat(op); }

absl::StatusOr<std::vector<Dispatch>> PlanUnary(const OpIO& io) {
  const K op = io.node.op->kind;
  const uint32_t type = TypeCode(io.in_types[0]->dtype);
  const ir::Attrs& a = io.attrs();
  float alpha = 0, beta = 0;
  uint32_t alpha_high = 0, beta_high = 0;
  switch (op) {
    case K::kElu:
      alpha = static_cast<float>(a.GetFloat("alpha", 1.0));
      break;
    case K::kLeakyRelu:
      alpha = static_cast<float>(a.GetFloat("alpha", 0.01));
      break;
    case K::kHardSigmoid:
      alpha = static_cast<float>(a.GetFloat("alpha", 0.2));
      beta = static_cast<float>(a.GetFloat("beta", 0.5));
      break;
    case K::kLinear:
      alpha = static_cast<float>(a.GetFloat("alpha", 1.0));
      beta = static_cast<float>(a.GetFloat("beta", 0.0));
      break;
    case K::kClamp: {
      constexpr double kInf = std::numeric_limits<double>::infinity();
      double lo = a.GetFloat("minValue", -kInf);
      double hi = a.GetFloat("maxValue", kInf);
      alpha = static_cast<float>(lo != lo ? -kInf : lo);
      beta = static_cast<float>(hi != hi ? kInf : hi);
      if (type != 0) {
        // Integer bounds: truncated and saturated to the type, their bits
        // carried in the float words (and the high words for 64 bits).
        const uint64_t lo_bits = BoundBits(lo != lo ? -kInf : lo, type);
        const uint64_t hi_bits = BoundBits(hi != hi ? kInf : hi, type);
        const uint32_t lo_low = static_cast<uint32_t>(lo_bits);
        const uint32_t hi_low = static_cast<uint32_t>(hi_bits);
        std::memcpy(&alpha, &lo_low, 4);
        std::memcpy(&beta, &hi_low, 4);
        alpha_high = static_cast<uint32_t>(lo_bits >> 32);
        beta_high = static_cast<uint32_t>(hi_bits >> 32);
      }
      break;
    }
    default:
      break;
  }
  // Tensors larger than one binding: consecutive chunks of elements, each
  // starting at an aligned offset.
  const int64_t n = Count(io.out_types[0]->shape);
  const uint64_t size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  const int64_t chunk = static_cast<int64_t>(
      (io.max_range / size) / (io.alignment / size) * (io.alignment / size));
  std::vector<Dispatch> result;
  for (int64_t at = 0; at < n; at += chunk) {
    const int64_t count = std::min(chunk, n - at);
    const Range part{static_cast<uint64_t>(at) * size,
                     static_cast<uint64_t>(count) * size};
    Dispatch d;
    d.shader = &UnaryShader(io.in_types[0]->dtype == ir::DType::kFloat16);
    d.spec = {static_cast<uint32_t>(UnaryCode(op)), type};
    d.bindings = {{io.in[0].offset + part.offset, part.bytes},
                  {io.out[0].offset + part.offset, part.bytes}};
    d.push = {Word(count), Word(alpha), Word(beta), alpha_high, beta_high};
    d.groups[0] = GridGroups(count, 256, io.max_groups);
    result.push_back(std::move(d));
  }
  return result;
}

absl::StatusOr<std::vector<Dispatch>> PlanBinary(const OpIO& io) {
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  const int rank = static_cast<int>(out.size());
  if (absl::Status s = CheckRank(out.size()); !s.ok()) return s;
  const std::vector<int64_t> sa = BroadcastStrides(io.in_types[0]->shape, out);
  const std::vector<int64_t> sb = BroadcastStrides(io.in_types[1]->shape, out);
  // Tensors larger than one binding: chunks of rows of the leading
  // dimension, each operand bound from the chunk's first row (or whole,
  // where it is broadcast along that dimension); offsets stay aligned.
  const uint64_t size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  const int64_t lead = rank == 0 ? 1 : out[0];
  const int64_t row = rank == 0 ? 1 : Count(out) / lead;  // elements
  int64_t rows = lead;
  const bool too_big = io.in[0].bytes > io.max_range ||
                       io.in[1].bytes > io.max_range ||
                       io.out[0].bytes > io.max_range;
  if (too_big) {
    rows = static_cast<int64_t>(io.max_range /
                                (static_cast<uint64_t>(row) * size));
    int64_t step = 1;  // rows whose bytes are a multiple of the alignment
    while ((static_cast<uint64_t>(step * row) * size) % io.alignment != 0) {
      ++step;
    }
    rows = rows / step * step;
    const bool broadcast_too_big =
        (sa.empty() || sa[0] == 0 ? io.in[0].bytes > io.max_range : false) ||
        (sb.empty() || sb[0] == 0 ? io.in[1].bytes > io.max_range : false);
    if (rank == 0 || rows < 1 || broadcast_too_big) {
      return absl::ResourceExhaustedError(
          "a tensor exceeds the device's maxStorageBufferRange and cannot be "
          "split by rows");
    }
  }
  auto part = [&](Range whole, int64_t stride0, int64_t first, int64_t count) {
    if (!too_big) return whole;
    if (stride0 == 0) return whole;
    return Range{whole.offset + static_cast<uint64_t>(first * stride0) * size,
                 static_cast<uint64_t>(count * stride0) * size};
  };
  std::vector<Dispatch> result;
  for (int64_t first = 0; first < lead; first += rows) {
    const int64_t count = std::min(rows, lead - first);
    const int64_t n = count * row;
    Dispatch d;
    d.shader = &BinaryShader(io.in_types[0]->dtype == ir::DType::kFloat16);
    d.spec = {static_cast<uint32_t>(BinaryCode(io.node.op->kind)),
              TypeCode(io.in_types[0]->dtype)};
    d.bindings = {part(io.in[0], rank ? sa[0] : 0, first, count),
                  part(io.in[1], rank ? sb[0] : 0, first, count),
                  part(io.out[0], row, first, count)};
    d.push = {Word(n), Word(int64_t{rank})};
    for (int k = 0; k < kMaxRank; ++k) {
      d.push.push_back(Word(k < rank ? (k == 0 ? count : out[k]) : 1));
    }
    for (int k = 0; k < kMaxRank; ++k) d.push.push_back(Word(sa[k]));
    for (int k = 0; k < kMaxRank; ++k) d.push.push_back(Word(sb[k]));
    d.groups[0] = GridGroups(n, 256, io.max_groups);
    result.push_back(std::move(d));
  }
  return result;
}

}  // namespace webnnm::backends::vulkan
