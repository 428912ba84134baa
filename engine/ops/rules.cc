#include "engine/ops/rules.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_join.h"
#include "engine/base/checked_math.h"

namespace webnnm::ops {
namespace {

std::string OperandName(const InferContext& c, int slot) {
  if (c.op.variadic()) {
    return StrCat("input ", slot, " of ", c.op.name);
  }
  if (slot < static_cast<int>(c.op.operands.size())) {
    return StrCat("'", c.op.operands[slot].name, "' of ", c.op.name);
  }
  return StrCat("operand ", slot, " of ", c.op.name);
}

}  // namespace

absl::Status CheckDType(const InferContext& c, int slot, DTypeSet allowed) {
  DType type = c.operand(slot).dtype;
  if (allowed.Contains(type)) return absl::OkStatus();
  return OperandError(
      slot, StrCat(OperandName(c, slot), " must be ", allowed.ToString(),
                   ", not ", ir::DTypeName(type)));
}

absl::Status CheckSameDType(const InferContext& c, int slot, int other) {
  if (c.operand(slot).dtype == c.operand(other).dtype) {
    return absl::OkStatus();
  }
  return OperandError(slot, StrCat(OperandName(c, slot), " is ",
                                   ir::DTypeName(c.operand(slot).dtype),
                                   " but ", OperandName(c, other), " is ",
                                   ir::DTypeName(c.operand(other).dtype),
                                   "; they must have the same data type"));
}

absl::Status CheckRank(const InferContext& c, int slot, int min_rank,
                       int max_rank) {
  int rank = c.operand(slot).rank();
  if (rank >= min_rank && rank <= max_rank) return absl::OkStatus();
  std::string expected = min_rank == max_rank ? StrCat(min_rank)
                         : max_rank >= 1000
                             ? StrCat("at least ", min_rank)
                             : StrCat(min_rank, " to ", max_rank);
  return OperandError(
      slot, StrCat(OperandName(c, slot), " must have rank ", expected,
                   ", but its shape ", ir::ShapeToString(c.operand(slot).shape),
                   " has rank ", rank));
}

absl::Status CheckRankIs(const InferContext& c, int slot, int rank) {
  return CheckRank(c, slot, rank, rank);
}

absl::Status CheckShapeIs(const InferContext& c, int slot,
                          const std::vector<int64_t>& shape) {
  if (c.operand(slot).shape == shape) return absl::OkStatus();
  return OperandError(slot, StrCat(OperandName(c, slot), " must have shape ",
                                   ir::ShapeToString(shape), ", not ",
                                   ir::ShapeToString(c.operand(slot).shape)));
}

absl::StatusOr<int64_t> ConcreteDim(const InferContext& c, int slot, int axis,
                                    std::string_view why) {
  int64_t d = c.operand(slot).shape[axis];
  if (!ir::IsSymbolic(d)) return d;
  return OperandError(
      slot, StrCat("dimension ", axis, " of ", OperandName(c, slot), " is the ",
                   ir::DimToString(d), " dimension, but ", why,
                   " needs a fixed size"));
}

absl::StatusOr<int> AxisAttr(const InferContext& c, const char* attr,
                             int64_t fallback, int rank) {
  int64_t axis = c.attrs.GetInt(attr, fallback);
  if (axis < 0 || axis >= rank) {
    return AttrError(attr, StrCat(c.op.name, " ", attr, " ", axis,
                                  " is out of range for rank ", rank));
  }
  return static_cast<int>(axis);
}

absl::StatusOr<std::vector<int>> AxesAttr(const InferContext& c,
                                          const char* attr,
                                          std::vector<int64_t> fallback,
                                          int rank) {
  std::vector<int64_t> axes = c.attrs.GetInts(attr, std::move(fallback));
  std::set<int64_t> seen;
  std::vector<int> result;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank) {
      return AttrError(attr, StrCat(c.op.name, " ", attr, " contains ", axis,
                                    ", out of range for rank ", rank));
    }
    if (!seen.insert(axis).second) {
      return AttrError(
          attr, StrCat(c.op.name, " ", attr, " lists axis ", axis, " twice"));
    }
    result.push_back(static_cast<int>(axis));
  }
  return result;
}

absl::StatusOr<std::string> EnumAttr(const InferContext& c, const char* attr,
                                     const char* fallback) {
  std::string value = c.attrs.GetString(attr, fallback);
  const ir::AttrSpec* spec = c.op.FindAttr(attr);
  if (spec == nullptr) return value;
  for (const char* choice : spec->choices) {
    if (value == choice) return value;
  }
  std::vector<std::string> choices(spec->choices.begin(), spec->choices.end());
  return AttrError(attr,
                   StrCat(c.op.name, " ", attr, " must be one of ",
                          absl::StrJoin(choices, ", "), ", not '", value, "'"));
}

absl::StatusOr<std::vector<int64_t>> IntListAttr(const InferContext& c,
                                                 const char* attr,
                                                 std::vector<int64_t> fallback,
                                                 size_t count,
                                                 int64_t min_value) {
  std::vector<int64_t> values = c.attrs.GetInts(attr, std::move(fallback));
  if (values.size() != count) {
    return AttrError(attr, StrCat(c.op.name, " ", attr, " must have ", count,
                                  " values, not ", values.size()));
  }
  for (int64_t v : values) {
    if (v < min_value) {
      return AttrError(attr,
                       StrCat(c.op.name, " ", attr, " values must be ",
                              min_value == 1   ? "positive"
                              : min_value == 0 ? "non-negative"
                                               : StrCat("at least ", min_value),
                              ", not ", v));
    }
    if (v > c.limits.max_dimension) {
      return AttrError(
          attr, StrCat(c.op.name, " ", attr, " value ", v,
                       " exceeds the limit of ", c.limits.max_dimension));
    }
  }
  return values;
}

absl::Status CheckResult(const InferContext& c, const TensorType& type) {
  if (type.rank() > c.limits.max_rank) {
    return absl::InvalidArgumentError(
        StrCat("the result of ", c.op.name, " would have rank ", type.rank(),
               ", more than the limit of ", c.limits.max_rank));
  }
  for (int64_t d : type.shape) {
    if (ir::IsSymbolic(d)) continue;
    if (d <= 0) {
      return absl::InvalidArgumentError(StrCat(
          "the result of ", c.op.name, " would have shape ",
          ir::ShapeToString(type.shape), "; every dimension must be positive"));
    }
    if (d > c.limits.max_dimension) {
      return absl::InvalidArgumentError(
          StrCat("the result of ", c.op.name, " would have a dimension of ", d,
                 ", more than the limit of ", c.limits.max_dimension));
    }
  }
  std::optional<int64_t> count = type.MinElementCount();
  std::optional<int64_t> bytes;
  if (count) {
    bytes = CheckedMul(*count, ir::BitWidth(type.dtype));
    if (bytes) bytes = *bytes / 8;
  }
  if (!bytes || *bytes > c.limits.max_tensor_bytes) {
    return absl::InvalidArgumentError(
        StrCat("the result of ", c.op.name, " (", type.ToString(),
               ") would be larger than the limit of ",
               c.limits.max_tensor_bytes, " bytes"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Types> Result(const InferContext& c, TensorType type) {
  absl::Status status = CheckResult(c, type);
  if (!status.ok()) return status;
  return Types{std::move(type)};
}

TensorType SameShape(const InferContext& c, int slot, DType dtype) {
  TensorType out = c.operand(slot);
  out.dtype = dtype;
  return out;
}

absl::StatusOr<TensorType> BroadcastTypes(const TensorType& a,
                                          const TensorType& b, DType dtype,
                                          int blame_slot) {
  int rank = std::max(a.rank(), b.rank());
  TensorType out;
  out.dtype = dtype;
  out.shape.resize(rank);
  bool names = a.has_names() || b.has_names();
  if (names) out.names.resize(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = i - (rank - a.rank());
    int ib = i - (rank - b.rank());
    int64_t da = ia >= 0 ? a.shape[ia] : 1;
    int64_t db = ib >= 0 ? b.shape[ib] : 1;
    int64_t d;
    bool from_a;
    if (da == db) {
      d = da;
      from_a = ia >= 0;
    } else if (db == 1) {
      d = da;
      from_a = true;
    } else if (da == 1) {
      d = db;
      from_a = false;
    } else {
      return OperandError(
          blame_slot,
          StrCat("shapes ", ir::ShapeToString(a.shape), " and ",
                 ir::ShapeToString(b.shape), " do not broadcast: dimension ",
                 ir::DimToString(da), " against ", ir::DimToString(db)));
    }
    out.shape[i] = d;
    if (names) {
      const TensorType& src = from_a ? a : b;
      int is = from_a ? ia : ib;
      const TensorType& other = from_a ? b : a;
      int io = from_a ? ib : ia;
      if (src.has_names() && is >= 0) {
        out.names[i] = src.names[is];
      } else if (other.has_names() && io >= 0) {
        out.names[i] = other.names[io];
      }
    }
  }
  if (names) {
    for (const std::string& n : out.names) {
      if (n.empty()) {
        out.names.clear();
        break;
      }
    }
  }
  // Keep the channel axis of the operand that fixes the rank.
  const TensorType& lead = a.rank() >= b.rank() ? a : b;
  if (lead.channel_axis >= 0) {
    out.channel_axis = lead.channel_axis + (rank - lead.rank());
  }
  return out;
}

absl::StatusOr<TensorType> Broadcast(const InferContext& c, int slot_a,
                                     int slot_b, DType dtype) {
  return BroadcastTypes(c.operand(slot_a), c.operand(slot_b), dtype, slot_b);
}

absl::Status CheckUnidirectional(const TensorType& from,
                                 const std::vector<int64_t>& to, int blame_slot,
                                 std::string_view what) {
  bool ok = from.rank() <= static_cast<int>(to.size());
  for (int i = 0; ok && i < from.rank(); ++i) {
    int64_t d = from.shape[from.rank() - 1 - i];
    int64_t t = to[to.size() - 1 - i];
    ok = d == t || d == 1;
  }
  if (ok) return absl::OkStatus();
  return OperandError(blame_slot,
                      StrCat(what, " of shape ", ir::ShapeToString(from.shape),
                             " does not broadcast to ", ir::ShapeToString(to)));
}

std::vector<std::string> NamesIf(const InferContext& c, int slot,
                                 std::vector<std::string> names) {
  if (!c.operand(slot).has_names()) return {};
  return names;
}

TensorType PerChannelShape(const TensorType& x) {
  TensorType p;
  p.dtype = x.dtype;
  int channel = x.ChannelAxis();
  if (channel < 0) return p;  // a scalar input: a scalar parameter
  for (int i = channel; i < x.rank(); ++i) {
    if (i == channel) {
      p.shape.push_back(x.shape[i]);
      if (x.has_names()) p.names.push_back(x.names[i]);
    } else {
      p.shape.push_back(1);
      if (x.has_names()) p.names.push_back(x.names[i]);
    }
  }
  // A per-channel parameter never carries a symbolic size.
  for (int64_t& d : p.shape) {
    if (ir::IsSymbolic(d)) d = 1;
  }
  p.channel_axis = 0;
  return p;
}

absl::StatusOr<int64_t> CheckedMulDims(int64_t a, int64_t b,
                                       std::string_view what) {
  auto r = CheckedMul(a, b);
  if (!r) return absl::InvalidArgumentError(StrCat(what, " overflows"));
  return *r;
}

absl::StatusOr<int64_t> CheckedAddDims(int64_t a, int64_t b,
                                       std::string_view what) {
  auto r = CheckedAdd(a, b);
  if (!r) return absl::InvalidArgumentError(StrCat(what, " overflows"));
  return *r;
}

}  // namespace webnnm::ops
