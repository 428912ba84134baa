// Operations on or to uint8: comparisons, isNaN, isInfinite and the
// logical operations (predicate.comp), where (where.comp) and cast
// (cast.comp). uint8 tensors are handled as words of four elements.
#include <algorithm>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

// predicate.comp's OP numbers.
int PredicateCode(K op) {
  switch (op) {
    case K::kEqual:
      return 0;
    case K::kNotEqual:
      return 1;
    case K::kGreater:
      return 2;
    case K::kGreaterOrEqual:
      return 3;
    case K::kLesser:
      return 4;
    case K::kLesserOrEqual:
      return 5;
    case K::kIsNaN:
      return 6;
    case K::kIsInfinite:
      return 7;
    case K::kLogicalAnd:
      return 8;
    case K::kLogicalOr:
      return 9;
    case K::kLogicalXor:
      return 10;
    case K::kLogicalNot:
      return 11;
    default:
      return -1;
  }
}

// cast.comp's type codes.
int CastCode(ir::DType t) {
  switch (t) {
    case ir::DType::kFloat32:
      return 0;
    case ir::DType::kFloat16:
      return 1;
    case ir::DType::kInt32:
      return 2;
    case ir::DType::kUint32:
      return 3;
    case ir::DType::kInt64:
      return 4;
    case ir::DType::kUint64:
      return 5;
    case ir::DType::kInt8:
      return 6;
    case ir::DType::kUint8:
      return 7;
    case ir::DType::kInt4:
      return 8;
    case ir::DType::kUint4:
      return 9;
    default:
      return -1;
  }
}

void PushShape(Dispatch& d, const std::vector<int64_t>& out) {
  const int rank = static_cast<int>(out.size());
  d.push = {Word(Count(out)), Word(int64_t{rank})};
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? out[k] : 1));
}

}  // namespace

bool IsPredicate(K op) { return PredicateCode(op) >= 0; }

bool CastSupported(ir::DType t) { return CastCode(t) >= 0; }

absl::StatusOr<std::vector<Dispatch>> PlanPredicate(const OpIO& io) {
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  if (absl::Status s = CheckRank(out.size()); !s.ok()) return s;
  const bool binary = io.in_types.size() > 1 && io.in_types[1] != nullptr;
  const K op = io.node.op->kind;
  Dispatch d;
  d.shader = &PredicateShader();
  const ir::DType type = io.in_types[0]->dtype;
  const uint32_t kind = type == ir::DType::kInt32    ? 1
                        : type == ir::DType::kUint32 ? 2
                        : type == ir::DType::kUint8  ? 3
                        : type == ir::DType::kInt64  ? 4
                        : type == ir::DType::kUint64 ? 5
                                                     : 0;
  d.spec = {static_cast<uint32_t>(PredicateCode(op)), kind};
  d.bindings = {io.in[0], binary ? io.in[1] : io.in[0], io.out[0]};
  PushShape(d, out);
  for (int64_t s : BroadcastStrides(io.in_types[0]->shape, out))
    d.push.push_back(Word(s));
  std::vector<int64_t> sb(kMaxRank, 0);
  if (binary) sb = BroadcastStrides(io.in_types[1]->shape, out);
  for (int64_t s : sb) d.push.push_back(Word(s));
  d.groups[0] = GridGroups((Count(out) + 3) / 4, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanWhere(const OpIO& io) {
  const std::vector<int64_t>& out = io.out_types[0]->shape;
  if (absl::Status s = CheckRank(out.size()); !s.ok()) return s;
  Dispatch d;
  d.shader = &WhereShader();
  d.spec = {ElementWords(io.out_types[0]->dtype)};
  d.bindings = {io.in[0], io.in[1], io.in[2], io.out[0]};
  // where.comp's block has room for the shape and three operands' strides
  // only: dimensions past the rank are 1.
  const int rank = static_cast<int>(out.size());
  for (int k = 0; k < kMaxRank; ++k) {
    d.push.push_back(Word(k < rank ? out[k] : 1));
  }
  for (int k = 0; k < 3; ++k) {
    for (int64_t s : BroadcastStrides(io.in_types[k]->shape, out)) {
      d.push.push_back(Word(s));
    }
  }
  d.groups[0] = GridGroups(Count(out), 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanCast(const OpIO& io) {
  const int from = CastCode(io.in_types[0]->dtype);
  const int to = CastCode(io.out_types[0]->dtype);
  if (from < 0 || to < 0) {
    return absl::UnimplementedError(
        StrCat("cast from ", ir::DTypeName(io.in_types[0]->dtype), " to ",
               ir::DTypeName(io.out_types[0]->dtype)));
  }
  // Tensors larger than one binding: chunks of elements whose byte
  // offsets stay aligned on both sides.
  const int64_t n = Count(io.out_types[0]->shape);
  const int64_t in_size = ir::RuntimeElementSize(io.in_types[0]->dtype);
  const int64_t out_size = ir::RuntimeElementSize(io.out_types[0]->dtype);
  const int64_t widest = std::max<int64_t>({in_size, out_size, 4});
  const int64_t align = static_cast<int64_t>(io.alignment);
  const int64_t chunk = std::max<int64_t>(
      align, static_cast<int64_t>(io.max_range) / widest / align * align);
  // One invocation per result word (two for 64-bit results).
  const int64_t per_word = out_size >= 4 ? 1 : 4 / out_size;
  std::vector<Dispatch> result;
  for (int64_t at = 0; at < n; at += chunk) {
    const int64_t count = std::min(chunk, n - at);
    Dispatch d;
    d.shader = &CastShader();
    d.spec = {static_cast<uint32_t>(from), static_cast<uint32_t>(to)};
    d.bindings = {{io.in[0].offset + static_cast<uint64_t>(at * in_size),
                   static_cast<uint64_t>(count * in_size)},
                  {io.out[0].offset + static_cast<uint64_t>(at * out_size),
                   static_cast<uint64_t>(count * out_size)}};
    d.push = {Word(count)};
    d.groups[0] =
        GridGroups((count + per_word - 1) / per_word, 256, io.max_groups);
    result.push_back(std::move(d));
  }
  return result;
}

}  // namespace webnnm::backends::vulkan
