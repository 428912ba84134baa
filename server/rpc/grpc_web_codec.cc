// The grpc-web wire format (grpc_web.h's grpc_web namespace): timeouts,
// percent-encoded messages, request bodies (binary or base64 text) and
// frames.
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/escaping.h"
#include "engine/base/strings.h"
#include "server/rpc/grpc_web.h"

namespace webnnm::server {
namespace grpc_web {

namespace {

// The timeout's microseconds, unbounded.
std::optional<int64_t> RawTimeout(const std::string& value) {
  if (value.size() < 2 || value.size() > 9) return std::nullopt;
  int64_t n = 0;
  for (size_t i = 0; i + 1 < value.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(value[i])))
      return std::nullopt;
    n = n * 10 + (value[i] - '0');
  }
  switch (value.back()) {
    case 'H':
      return n * 3600 * 1000000;
    case 'M':
      return n * 60 * 1000000;
    case 'S':
      return n * 1000000;
    case 'm':
      return n * 1000;
    case 'u':
      return n;
    case 'n':
      return n / 1000;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<int64_t> ParseTimeout(const std::string& value) {
  // At most 8 digits and a unit; the result is clamped to kMaxTimeout, so
  // that 99999999H (11,000 years) is a long deadline, not an overflow.
  constexpr int64_t kMaxTimeout = int64_t{366} * 24 * 3600 * 1000000;
  std::optional<int64_t> micros = RawTimeout(value);
  if (!micros) return std::nullopt;
  return std::min(*micros, kMaxTimeout);
}

std::string PercentEncode(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c <= 0x7e && c != '%') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

absl::StatusOr<std::string> DecodeRequest(bool text, const std::string& body) {
  std::string bytes = body;
  if (text) {
    std::string compact;
    for (char ch : body) {
      if (!std::isspace(static_cast<unsigned char>(ch))) compact += ch;
    }
    if (!absl::Base64Unescape(compact, &bytes)) {
      return absl::InvalidArgumentError("the grpc-web-text body is not base64");
    }
  }
  if (bytes.size() < 5 || bytes[0] != 0) {
    return absl::InvalidArgumentError(
        "the request needs one uncompressed grpc-web DATA frame");
  }
  uint32_t length =
      (static_cast<uint32_t>(static_cast<uint8_t>(bytes[1])) << 24) |
      (static_cast<uint32_t>(static_cast<uint8_t>(bytes[2])) << 16) |
      (static_cast<uint32_t>(static_cast<uint8_t>(bytes[3])) << 8) |
      static_cast<uint32_t>(static_cast<uint8_t>(bytes[4]));
  if (length != bytes.size() - 5) {
    return absl::InvalidArgumentError(
        "the grpc-web frame's length does not match the body");
  }
  return bytes.substr(5);
}

std::string Frame(uint8_t flags, const std::string& payload) {
  std::string frame(5, '\0');
  frame[0] = static_cast<char>(flags);
  uint32_t n = static_cast<uint32_t>(payload.size());
  frame[1] = static_cast<char>(n >> 24);
  frame[2] = static_cast<char>(n >> 16);
  frame[3] = static_cast<char>(n >> 8);
  frame[4] = static_cast<char>(n);
  return frame + payload;
}

}  // namespace grpc_web

}  // namespace webnnm::server
