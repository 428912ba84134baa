// ParseNpy (npz.h): one NumPy .npy array — format versions 1-3, C order,
// little-endian (or single-byte) floats, integers and bool.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/float16.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/npz.h"

namespace webnnm::train {
namespace {

absl::Status Bad(const std::string& name, const std::string& what) {
  return absl::InvalidArgumentError(StrCat(name, ": ", what));
}

// The text after `key` in the header's dict, past blanks.
std::optional<std::string_view> After(std::string_view header,
                                      std::string_view key) {
  const size_t at = header.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = header.substr(at + key.size());
  while (!rest.empty() && (rest[0] == ' ' || rest[0] == ':')) {
    rest.remove_prefix(1);
  }
  return rest;
}

absl::StatusOr<std::vector<int64_t>> ParseShape(std::string_view rest,
                                                const std::string& name) {
  if (rest.empty() || rest[0] != '(') return Bad(name, "no shape tuple");
  const size_t close = rest.find(')');
  if (close == std::string_view::npos) return Bad(name, "no shape tuple");
  std::vector<int64_t> shape;
  std::string_view inside = rest.substr(1, close - 1);
  while (!inside.empty()) {
    while (!inside.empty() && (inside[0] == ' ' || inside[0] == ',')) {
      inside.remove_prefix(1);
    }
    if (inside.empty()) break;
    int64_t v = 0;
    size_t digits = 0;
    while (digits < inside.size() && inside[digits] >= '0' &&
           inside[digits] <= '9') {
      if (v > (int64_t{1} << 40)) return Bad(name, "a shape too large");
      v = v * 10 + (inside[digits] - '0');
      ++digits;
    }
    if (digits == 0) return Bad(name, "a shape of non-numbers");
    shape.push_back(v);
    inside.remove_prefix(digits);
  }
  return shape;
}

template <typename T>
void Convert(const char* data, size_t count, std::vector<double>& out) {
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
}

absl::Status ConvertValues(NpyArray& a, const char* data, size_t count,
                           const std::string& name) {
  using K = NpyArray::Kind;
  switch (a.kind) {
    case K::kFloat:
      if (a.element_bytes == 2) {
        a.values.resize(count);
        for (size_t i = 0; i < count; ++i) {
          uint16_t bits;
          std::memcpy(&bits, data + 2 * i, 2);
          a.values[i] = HalfToFloat(bits);
        }
      } else if (a.element_bytes == 4) {
        Convert<float>(data, count, a.values);
      } else if (a.element_bytes == 8) {
        Convert<double>(data, count, a.values);
      } else {
        return Bad(name, StrCat("float of ", a.element_bytes,
                                " bytes is not supported"));
      }
      return absl::OkStatus();
    case K::kSigned:
      if (a.element_bytes == 1) Convert<int8_t>(data, count, a.values);
      if (a.element_bytes == 2) Convert<int16_t>(data, count, a.values);
      if (a.element_bytes == 4) Convert<int32_t>(data, count, a.values);
      if (a.element_bytes == 8) Convert<int64_t>(data, count, a.values);
      break;
    case K::kUnsigned:
    case K::kBool:
      if (a.element_bytes == 1) Convert<uint8_t>(data, count, a.values);
      if (a.element_bytes == 2) Convert<uint16_t>(data, count, a.values);
      if (a.element_bytes == 4) Convert<uint32_t>(data, count, a.values);
      if (a.element_bytes == 8) Convert<uint64_t>(data, count, a.values);
      break;
  }
  if (a.values.size() != count) {
    return Bad(name, StrCat("integers of ", a.element_bytes,
                            " bytes are not supported"));
  }
  return absl::OkStatus();
}

absl::Status ParseDescr(std::string_view descr, NpyArray& a,
                        const std::string& name) {
  if (descr.size() < 3) return Bad(name, "a malformed dtype");
  const char order = descr[0];
  const char type = descr[1];
  int bytes = 0;
  for (char c : descr.substr(2)) {
    if (c < '0' || c > '9' || bytes > 100) {
      return Bad(name, StrCat("dtype '", descr, "' is not supported"));
    }
    bytes = bytes * 10 + (c - '0');
  }
  if (order == '>' && bytes > 1) {
    return Bad(name, StrCat("dtype '", descr,
                            "' is big-endian; save it little-endian"));
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    return Bad(name, StrCat("dtype '", descr, "' is not supported"));
  }
  using K = NpyArray::Kind;
  switch (type) {
    case 'f':
      a.kind = K::kFloat;
      break;
    case 'i':
      a.kind = K::kSigned;
      break;
    case 'u':
      a.kind = K::kUnsigned;
      break;
    case 'b':
      a.kind = K::kBool;
      break;
    default:
      return Bad(name, StrCat("dtype '", descr,
                              "' is not supported (floats, "
                              "integers and bool are)"));
  }
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
    return Bad(name, StrCat("dtype '", descr, "' is not supported"));
  }
  a.element_bytes = bytes;
  return absl::OkStatus();
}

// ParseNpy, or with `header_only` the header's dtype and shape alone (the
// data need not follow).
absl::StatusOr<NpyArray> ParseNpyImpl(std::string_view bytes,
                                      const std::string& name,
                                      bool header_only) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") {
    return Bad(name, "not a .npy array (no \\x93NUMPY magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_length = 0, start = 0;
  if (major == 1) {
    header_length = static_cast<unsigned char>(bytes[8]) |
                    static_cast<unsigned char>(bytes[9]) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad(name, "a truncated header");
    for (int i = 3; i >= 0; --i) {
      header_length =
          header_length << 8 | static_cast<unsigned char>(bytes[8 + i]);
    }
    start = 12;
  } else {
    return Bad(name,
               StrCat(".npy format version ", major, " is not supported"));
  }
  if (header_length > bytes.size() - start) {
    return Bad(name, "a truncated header");
  }
  const std::string_view header = bytes.substr(start, header_length);
  NpyArray a;
  std::optional<std::string_view> descr = After(header, "'descr'");
  if (!descr || descr->empty() || (*descr)[0] != '\'') {
    return Bad(name, "no dtype in the header");
  }
  const size_t close = descr->find('\'', 1);
  if (close == std::string_view::npos) return Bad(name, "a malformed dtype");
  RETURN_IF_ERROR(ParseDescr(descr->substr(1, close - 1), a, name));
  std::optional<std::string_view> fortran = After(header, "'fortran_order'");
  if (!fortran) return Bad(name, "no fortran_order in the header");
  if (fortran->starts_with("True")) {
    return Bad(name, "Fortran order is not supported; save it in C order");
  }
  std::optional<std::string_view> shape = After(header, "'shape'");
  if (!shape) return Bad(name, "no shape in the header");
  ASSIGN_OR_RETURN(a.shape, ParseShape(*shape, name));
  uint64_t count = 1;
  for (int64_t d : a.shape) {
    if (d != 0 && count > (uint64_t{1} << 50) / static_cast<uint64_t>(d)) {
      return Bad(name, "a shape too large");
    }
    count *= static_cast<uint64_t>(d);
  }
  if (header_only) return a;
  const std::string_view data = bytes.substr(start + header_length);
  if (data.size() != count * a.element_bytes) {
    return Bad(name,
               StrCat("the header's shape needs ", count * a.element_bytes,
                      " bytes of data, but "
                      "the array holds ",
                      data.size()));
  }
  RETURN_IF_ERROR(ConvertValues(a, data.data(), count, name));
  return a;
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes,
                                  const std::string& name) {
  return ParseNpyImpl(bytes, name, /*header_only=*/false);
}

absl::StatusOr<NpyArray> ParseNpyHeader(std::string_view bytes,
                                        const std::string& name) {
  return ParseNpyImpl(bytes, name, /*header_only=*/true);
}

}  // namespace webnnm::train
