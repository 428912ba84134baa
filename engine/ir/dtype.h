// Tensor data types.
//
// The WebNN data types WebNNM accepts, with their names, sizes and the
// precision order that lazy up-casting follows (ERRATA 6; docs/language.md):
//   float32 > float16 > int64 > uint64 > int32 > uint32 > int8 > uint8
//   > int4 > uint4
// An implicit cast only ever goes up this order.
#ifndef WEBNNM_ENGINE_IR_DTYPE_H_
#define WEBNNM_ENGINE_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace webnnm::ir {

enum class DType : uint8_t {
  kFloat32,
  kFloat16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kInt8,
  kUint8,
  kInt4,
  kUint4,
};
inline constexpr int kNumDTypes = 10;

const char* DTypeName(DType type);
std::optional<DType> ParseDType(std::string_view name);
std::vector<std::string> AllDTypeNames();

bool IsFloat(DType type);
bool IsSigned(DType type);  // floats and intN
// Storage size in bits (4 for int4/uint4).
int BitWidth(DType type);
// Bytes for `count` elements, int4/uint4 packed two per byte (rounded up):
// the size WebNN's limits count; INT64_MAX when it overflows (beyond every
// limit).
int64_t ByteLength(DType type, int64_t count);
// Bytes per element in memory, as graphs and backends store tensors:
// float16 as its 16-bit pattern, int4/uint4 one element per byte.
int RuntimeElementSize(DType type);
// Position in the precision order; higher is more precise.
int Precision(DType type);
// The more precise of two types.
DType MorePrecise(DType a, DType b);
// Smallest and largest value an integer type holds (for range checks).
double MinValue(DType type);
double MaxValue(DType type);

// A set of data types, as an op's operand accepts them.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> types) {
    for (DType t : types) bits_ |= 1u << static_cast<int>(t);
  }
  static constexpr DTypeSet All() {
    DTypeSet s;
    s.bits_ = (1u << kNumDTypes) - 1;
    return s;
  }
  constexpr bool Contains(DType t) const {
    return bits_ & (1u << static_cast<int>(t));
  }
  constexpr bool empty() const { return bits_ == 0; }
  std::vector<DType> Members() const;
  std::string ToString() const;  // "float32, float16"

 private:
  uint32_t bits_ = 0;
};

inline constexpr DTypeSet kFloatTypes = {DType::kFloat32, DType::kFloat16};
inline constexpr DTypeSet kAllTypes = DTypeSet::All();
inline constexpr DTypeSet kNumericTypes = {  // WebNN's "any" minus int4/uint4
    DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kUint32,
    DType::kInt64,   DType::kUint64,  DType::kInt8,  DType::kUint8};
inline constexpr DTypeSet kSignedTypes = {  // float and signed integers
    DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kInt64,
    DType::kInt8};
inline constexpr DTypeSet kIndexTypes = {DType::kInt32, DType::kUint32,
                                         DType::kInt64};

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_DTYPE_H_
