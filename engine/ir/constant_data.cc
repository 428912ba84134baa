#include "engine/ir/constant_data.h"

#include <cmath>
#include <cstring>

#include "engine/base/float16.h"
#include "engine/base/strings.h"

namespace webnnm::ir {
namespace {

template <typename T>
void AppendRaw(ConstantData& data, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  data.bytes.insert(data.bytes.end(), bytes, bytes + sizeof(T));
}

template <typename T>
T ReadRaw(const ConstantData& data, int64_t index) {
  T value;
  std::memcpy(&value, data.bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

absl::Status AppendNumber(ConstantData& data, DType type, double value,
                          bool integral, int64_t integer) {
  if (type == DType::kFloat32) {
    if (std::isfinite(value) && std::fabs(value) > MaxValue(type)) {
      return absl::InvalidArgumentError(
          StrCat(value, " is too large for float32"));
    }
    AppendRaw(data, static_cast<float>(value));
    return absl::OkStatus();
  }
  if (type == DType::kFloat16) {
    if (std::isfinite(value) && std::fabs(value) >= 65520.0) {
      return absl::InvalidArgumentError(
          StrCat(value, " is too large for float16 (largest 65504)"));
    }
    AppendRaw(data, DoubleToHalf(value));
    return absl::OkStatus();
  }
  if (!integral) {
    return absl::InvalidArgumentError(
        StrCat(value, " is not an integer, as ", DTypeName(type), " needs"));
  }
  bool in_range = true;
  if (type == DType::kUint64) {
    in_range = integer >= 0;
  } else if (type != DType::kInt64) {
    in_range = integer >= static_cast<int64_t>(MinValue(type)) &&
               integer <= static_cast<int64_t>(MaxValue(type));
  }
  if (!in_range) {
    return absl::InvalidArgumentError(StrCat(
        integer, " is out of the range of ", DTypeName(type), " [",
        static_cast<int64_t>(MinValue(type)), ", ",
        type == DType::kUint64 ? std::string("2^64-1")
                               : StrCat(static_cast<int64_t>(MaxValue(type))),
        "]"));
  }
  switch (type) {
    case DType::kInt32:
      AppendRaw(data, static_cast<int32_t>(integer));
      break;
    case DType::kUint32:
      AppendRaw(data, static_cast<uint32_t>(integer));
      break;
    case DType::kInt64:
      AppendRaw(data, integer);
      break;
    case DType::kUint64:
      AppendRaw(data, static_cast<uint64_t>(integer));
      break;
    case DType::kInt8:
    case DType::kInt4:
      AppendRaw(data, static_cast<int8_t>(integer));
      break;
    case DType::kUint8:
    case DType::kUint4:
      AppendRaw(data, static_cast<uint8_t>(integer));
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

std::shared_ptr<const ConstantData> ScalarData(DType type, double value) {
  auto data = std::make_shared<ConstantData>();
  bool integral = value == std::trunc(value) && std::fabs(value) < 9.2e18;
  absl::Status status = AppendNumber(
      *data, type, value, integral, integral ? static_cast<int64_t>(value) : 0);
  (void)status;  // callers pass values that fit
  return data;
}

double ReadNumber(const ConstantData& data, DType type, int64_t index) {
  switch (type) {
    case DType::kFloat32:
      return ReadRaw<float>(data, index);
    case DType::kFloat16:
      return HalfToFloat(ReadRaw<uint16_t>(data, index));
    case DType::kInt32:
      return ReadRaw<int32_t>(data, index);
    case DType::kUint32:
      return ReadRaw<uint32_t>(data, index);
    case DType::kInt64:
      return static_cast<double>(ReadRaw<int64_t>(data, index));
    case DType::kUint64:
      return static_cast<double>(ReadRaw<uint64_t>(data, index));
    case DType::kInt8:
    case DType::kInt4:
      return ReadRaw<int8_t>(data, index);
    case DType::kUint8:
    case DType::kUint4:
      return ReadRaw<uint8_t>(data, index);
  }
  return 0;
}

}  // namespace webnnm::ir
