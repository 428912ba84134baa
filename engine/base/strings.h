// String building that accepts std::string_view, and numbers for people.
//
// Debian's Abseil is built with its own absl::string_view (not an alias of
// std::string_view), so absl::StrCat rejects std::string_view arguments.
// These forward to absl::StrCat/StrAppend after converting them.
#ifndef WEBNNM_ENGINE_BASE_STRINGS_H_
#define WEBNNM_ENGINE_BASE_STRINGS_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace webnnm {
namespace strings_internal {

template <typename T>
decltype(auto) ToAbsl(const T& value) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(value.data(), value.size());
  } else {
    return (value);
  }
}

}  // namespace strings_internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(strings_internal::ToAbsl(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  out->append(StrCat(args...));
}

// A number for people: three significant digits ("0.0123", "1.5e-05").
inline std::string FormatNumber(double value) {
  return absl::StrFormat("%.3g", value);
}

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_STRINGS_H_
