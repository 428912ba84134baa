// Shared building blocks for the shape/type rules in engine/ops/.
//
// Every rule validates with these, so that all operations check data types,
// ranks, axes and sizes the same way, with checked 64-bit arithmetic and the
// configured limits, and produce the same messages.
#ifndef WEBNNM_ENGINE_OPS_RULES_H_
#define WEBNNM_ENGINE_OPS_RULES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/base/strings.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rule_errors.h"

namespace webnnm::ops {

using ir::AttrError;
using ir::DType;
using ir::DTypeSet;
using ir::InferContext;
using ir::OperandError;
using ir::TensorType;

using Types = std::vector<TensorType>;

// ---- operands --------------------------------------------------------------

// The operand's data type is in `allowed`.
absl::Status CheckDType(const InferContext& c, int slot, DTypeSet allowed);
// Operand `slot` has the data type of operand `other`.
absl::Status CheckSameDType(const InferContext& c, int slot, int other);
// Operand `slot` has a rank in [min_rank, max_rank].
absl::Status CheckRank(const InferContext& c, int slot, int min_rank,
                       int max_rank);
absl::Status CheckRankIs(const InferContext& c, int slot, int rank);
// Operand `slot` has exactly `shape`.
absl::Status CheckShapeIs(const InferContext& c, int slot,
                          const std::vector<int64_t>& shape);
// The operand's dimension `axis` has a concrete size (not batch or sequence).
absl::StatusOr<int64_t> ConcreteDim(const InferContext& c, int slot, int axis,
                                    std::string_view why);

// ---- attributes -------------------------------------------------------------

// Axis attribute `attr` (default `fallback`) is in [0, rank).
absl::StatusOr<int> AxisAttr(const InferContext& c, const char* attr,
                             int64_t fallback, int rank);
// Axes attribute: distinct, each in [0, rank). `fallback` when absent.
absl::StatusOr<std::vector<int>> AxesAttr(const InferContext& c,
                                          const char* attr,
                                          std::vector<int64_t> fallback,
                                          int rank);
// Enum attribute `attr` is one of the op's declared choices.
absl::StatusOr<std::string> EnumAttr(const InferContext& c, const char* attr,
                                     const char* fallback);
// A list attribute of exactly `count` integers, each >= `min_value`.
absl::StatusOr<std::vector<int64_t>> IntListAttr(const InferContext& c,
                                                 const char* attr,
                                                 std::vector<int64_t> fallback,
                                                 size_t count,
                                                 int64_t min_value);

// ---- results ---------------------------------------------------------------

// Checks every dimension (positive, or symbolic; at most the limit), the rank
// and the byte length of a result type.
absl::Status CheckResult(const InferContext& c, const TensorType& type);
// Wraps one result after CheckResult.
absl::StatusOr<Types> Result(const InferContext& c, TensorType type);

// Output type with operand `slot`'s shape, names and channel axis.
TensorType SameShape(const InferContext& c, int slot, DType dtype);

// Bidirectional (numpy) broadcast of two operand types to data type `dtype`.
// Names follow the operand that gives each output dimension its size.
absl::StatusOr<TensorType> Broadcast(const InferContext& c, int slot_a,
                                     int slot_b, DType dtype);
absl::StatusOr<TensorType> BroadcastTypes(const TensorType& a,
                                          const TensorType& b, DType dtype,
                                          int blame_slot);
// Operand `from` broadcasts to `to` without changing it (unidirectional).
absl::Status CheckUnidirectional(const TensorType& from,
                                 const std::vector<int64_t>& to, int blame_slot,
                                 std::string_view what);

// Drops dimension names when an input has none; otherwise keeps them.
std::vector<std::string> NamesIf(const InferContext& c, int slot,
                                 std::vector<std::string> names);

// ---- parameter shapes ------------------------------------------------------

// One value per channel of `x` (ERRATA 10c): the channel dimension and every
// feature dimension after it, the latter as 1 ([C, 1, 1] for nchw).
TensorType PerChannelShape(const TensorType& x);

// ---- numbers ---------------------------------------------------------------

absl::StatusOr<int64_t> CheckedMulDims(int64_t a, int64_t b,
                                       std::string_view what);
absl::StatusOr<int64_t> CheckedAddDims(int64_t a, int64_t b,
                                       std::string_view what);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_RULES_H_
