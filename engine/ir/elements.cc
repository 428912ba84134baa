#include "engine/ir/elements.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/base/float16.h"

namespace webnnm::ir {
namespace {

template <typename T>
T Saturate(double v) {
  if (std::isnan(v)) return T(0);
  double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  double hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(std::nearbyint(v), lo, hi));
}

template <typename T>
void Put(std::byte* out, size_t i, T v) {
  std::memcpy(out + i * sizeof(T), &v, sizeof(T));
}

template <typename T>
double Get(const std::byte* in, size_t i) {
  T v;
  std::memcpy(&v, in + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

template <typename V>
void Write(std::span<std::byte> out, DType dtype, std::span<const V> values) {
  std::byte* p = out.data();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if constexpr (std::is_same_v<V, float>) {
      if (dtype == DType::kFloat32) {  // exact, without a double round trip
        Put<float>(p, i, values[i]);
        continue;
      }
    }
    switch (dtype) {
      case DType::kFloat32:
        Put<float>(p, i, static_cast<float>(v));
        break;
      case DType::kFloat16:
        Put<uint16_t>(p, i, DoubleToHalf(v));
        break;
      case DType::kInt32:
        Put<int32_t>(p, i, Saturate<int32_t>(v));
        break;
      case DType::kUint32:
        Put<uint32_t>(p, i, Saturate<uint32_t>(v));
        break;
      case DType::kInt64:
        Put<int64_t>(p, i, Saturate<int64_t>(v));
        break;
      case DType::kUint64:
        Put<uint64_t>(p, i, Saturate<uint64_t>(v));
        break;
      case DType::kInt8:
        Put<int8_t>(p, i, Saturate<int8_t>(v));
        break;
      case DType::kUint8:
        Put<uint8_t>(p, i, Saturate<uint8_t>(v));
        break;
      case DType::kInt4:
        Put<int8_t>(p, i,
                    static_cast<int8_t>(std::clamp(
                        static_cast<int>(Saturate<int8_t>(v)), -8, 7)));
        break;
      case DType::kUint4:
        Put<uint8_t>(p, i,
                     static_cast<uint8_t>(std::clamp(
                         static_cast<int>(Saturate<uint8_t>(v)), 0, 15)));
        break;
    }
  }
}

}  // namespace

std::vector<double> ReadElements(std::span<const std::byte> in, DType dtype,
                                 size_t count) {
  std::vector<double> values(count);
  const std::byte* p = in.data();
  for (size_t i = 0; i < count; ++i) {
    switch (dtype) {
      case DType::kFloat32:
        values[i] = Get<float>(p, i);
        break;
      case DType::kFloat16: {
        uint16_t bits;
        std::memcpy(&bits, p + 2 * i, 2);
        values[i] = HalfToFloat(bits);
        break;
      }
      case DType::kInt32:
        values[i] = Get<int32_t>(p, i);
        break;
      case DType::kUint32:
        values[i] = Get<uint32_t>(p, i);
        break;
      case DType::kInt64:
        values[i] = Get<int64_t>(p, i);
        break;
      case DType::kUint64:
        values[i] = Get<uint64_t>(p, i);
        break;
      case DType::kInt8:
      case DType::kInt4:
        values[i] = Get<int8_t>(p, i);
        break;
      case DType::kUint8:
      case DType::kUint4:
        values[i] = Get<uint8_t>(p, i);
        break;
    }
  }
  return values;
}

void WriteElements(std::span<std::byte> out, DType dtype,
                   std::span<const double> values) {
  Write(out, dtype, values);
}

void WriteElements(std::span<std::byte> out, DType dtype,
                   std::span<const float> values) {
  Write(out, dtype, values);
}

}  // namespace webnnm::ir
