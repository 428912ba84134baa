#include "engine/ir/dtype.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_join.h"

namespace webnnm::ir {

const char* DTypeName(DType type) {
  switch (type) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kInt32:
      return "int32";
    case DType::kUint32:
      return "uint32";
    case DType::kInt64:
      return "int64";
    case DType::kUint64:
      return "uint64";
    case DType::kInt8:
      return "int8";
    case DType::kUint8:
      return "uint8";
    case DType::kInt4:
      return "int4";
    case DType::kUint4:
      return "uint4";
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    if (name == DTypeName(t)) return t;
  }
  return std::nullopt;
}

std::vector<std::string> AllDTypeNames() {
  std::vector<std::string> names;
  for (int i = 0; i < kNumDTypes; ++i) {
    names.push_back(DTypeName(static_cast<DType>(i)));
  }
  return names;
}

bool IsFloat(DType type) {
  return type == DType::kFloat32 || type == DType::kFloat16;
}

bool IsSigned(DType type) {
  switch (type) {
    case DType::kUint32:
    case DType::kUint64:
    case DType::kUint8:
    case DType::kUint4:
      return false;
    default:
      return true;
  }
}

int BitWidth(DType type) {
  switch (type) {
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUint32:
      return 32;
    case DType::kFloat16:
      return 16;
    case DType::kInt64:
    case DType::kUint64:
      return 64;
    case DType::kInt8:
    case DType::kUint8:
      return 8;
    case DType::kInt4:
    case DType::kUint4:
      return 4;
  }
  return 0;
}

int64_t ByteLength(DType type, int64_t count) {
  int bits = BitWidth(type);
  if (bits == 4) return count / 2 + count % 2;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, int64_t{bits / 8}, &bytes)) {
    return std::numeric_limits<int64_t>::max();  // beyond every limit
  }
  return bytes;
}

int RuntimeElementSize(DType type) {
  int bits = BitWidth(type);
  return bits == 4 ? 1 : bits / 8;
}

int Precision(DType type) {
  switch (type) {
    case DType::kFloat32:
      return 10;
    case DType::kFloat16:
      return 9;
    case DType::kInt64:
      return 8;
    case DType::kUint64:
      return 7;
    case DType::kInt32:
      return 6;
    case DType::kUint32:
      return 5;
    case DType::kInt8:
      return 4;
    case DType::kUint8:
      return 3;
    case DType::kInt4:
      return 2;
    case DType::kUint4:
      return 1;
  }
  return 0;
}

DType MorePrecise(DType a, DType b) {
  return Precision(a) >= Precision(b) ? a : b;
}

double MinValue(DType type) {
  switch (type) {
    case DType::kFloat32:
      return -3.4028234663852886e38;
    case DType::kFloat16:
      return -65504.0;
    case DType::kInt32:
      return -2147483648.0;
    case DType::kInt64:
      return -9223372036854775808.0;
    case DType::kInt8:
      return -128;
    case DType::kInt4:
      return -8;
    default:
      return 0;
  }
}

double MaxValue(DType type) {
  switch (type) {
    case DType::kFloat32:
      return 3.4028234663852886e38;
    case DType::kFloat16:
      return 65504.0;
    case DType::kInt32:
      return 2147483647.0;
    case DType::kUint32:
      return 4294967295.0;
    case DType::kInt64:
      return 9223372036854775807.0;
    case DType::kUint64:
      return 18446744073709551615.0;
    case DType::kInt8:
      return 127;
    case DType::kUint8:
      return 255;
    case DType::kInt4:
      return 7;
    case DType::kUint4:
      return 15;
  }
  return 0;
}

std::vector<DType> DTypeSet::Members() const {
  std::vector<DType> members;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (Contains(static_cast<DType>(i)))
      members.push_back(static_cast<DType>(i));
  }
  return members;
}

std::string DTypeSet::ToString() const {
  std::vector<std::string> names;
  for (DType t : Members()) names.push_back(DTypeName(t));
  return absl::StrJoin(names, ", ");
}

}  // namespace webnnm::ir
