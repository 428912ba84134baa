// Overflow-checked 64-bit arithmetic for sizes and offsets.
//
// Every size computed from user input (shapes, element counts, byte lengths,
// windows) goes through these helpers: they return std::nullopt instead of
// wrapping around, so callers turn an overflow into an error Status.
#ifndef WEBNNM_ENGINE_BASE_CHECKED_MATH_H_
#define WEBNNM_ENGINE_BASE_CHECKED_MATH_H_

#include <cstdint>
#include <optional>
#include <span>

namespace webnnm {

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Product of `values`; 1 for an empty span; nullopt on overflow.
inline std::optional<int64_t> CheckedProduct(std::span<const int64_t> values) {
  int64_t r = 1;
  for (int64_t v : values) {
    if (__builtin_mul_overflow(r, v, &r)) return std::nullopt;
  }
  return r;
}

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_CHECKED_MATH_H_
