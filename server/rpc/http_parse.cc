// ParseRequestHead and HttpRequest's lookups (http_server.h).
#include <cctype>
#include <string>
#include <string_view>

#include "engine/base/strings.h"
#include "server/rpc/http_server.h"

namespace webnnm::server {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// RFC 9110's token characters (a header name, a method).
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (std::isalnum(c)) continue;
    if (std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) ==
        std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// The head's lines, without their line ends, up to the blank line.
std::vector<std::string_view> Lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    size_t end = head.find('\n');
    std::string_view line =
        head.substr(0, end == std::string_view::npos ? head.size() : end);
    head.remove_prefix(end == std::string_view::npos ? head.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    lines.push_back(line);
  }
  return lines;
}

absl::Status ParseRequestLine(std::string_view line, HttpRequest& request) {
  size_t a = line.find(' ');
  size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
  if (b == std::string_view::npos || line.find(' ', b + 1) != line.npos) {
    return absl::InvalidArgumentError(
        "the request line is not METHOD TARGET HTTP/1.x");
  }
  std::string_view method = line.substr(0, a);
  std::string_view target = line.substr(a + 1, b - a - 1);
  std::string_view version = line.substr(b + 1);
  if (!IsToken(method)) {
    return absl::InvalidArgumentError("the request's method is not a token");
  }
  if (target.empty() || target.front() != '/') {
    return absl::InvalidArgumentError(
        "the request's target must be a path starting with '/'");
  }
  for (unsigned char c : target) {
    if (c <= 0x20 || c >= 0x7f) {
      return absl::InvalidArgumentError(
          "the request's target holds a control or non-ASCII byte");
    }
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return absl::InvalidArgumentError(
        StrCat("HTTP/1.0 and HTTP/1.1 only, not '", version.substr(0, 16),
               "'"));
  }
  request.method = std::string(method);
  request.target = std::string(target);
  request.path = std::string(target.substr(0, target.find('?')));
  request.http11 = version == "HTTP/1.1";
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ContentLength(std::string_view value) {
  if (value.empty() || value.size() > 18) {
    return absl::InvalidArgumentError(
        "Content-Length must be a decimal number of at most 18 digits");
  }
  int64_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(
          "Content-Length must be a decimal number");
    }
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

size_t RequestHeadEnd(std::string_view bytes, size_t most) {
  size_t at = 0;
  while (at < bytes.size() && at <= most) {
    size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) return std::string_view::npos;
    std::string_view line = bytes.substr(at, end - at);
    if (line.empty() || line == "\r") return end + 1 <= most ? end + 1 : line.npos;
    at = end + 1;
  }
  return std::string_view::npos;
}

bool HttpRequest::HasHeader(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return true;
  }
  return false;
}

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

absl::StatusOr<RequestHead> ParseRequestHead(std::string_view head) {
  std::vector<std::string_view> lines = Lines(head);
  if (lines.empty()) return absl::InvalidArgumentError("an empty request");
  RequestHead out;
  HttpRequest& request = out.request;
  if (absl::Status s = ParseRequestLine(lines[0], request); !s.ok()) return s;
  bool have_length = false;
  std::string connection;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      return absl::InvalidArgumentError(
          StrCat("header line ", i, " is not NAME: VALUE"));
    }
    std::string name = Lower(line.substr(0, colon));
    std::string_view value = Trim(line.substr(colon + 1));
    for (unsigned char c : value) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return absl::InvalidArgumentError(
            StrCat("header '", name, "' holds a control byte"));
      }
    }
    if (name == "content-length") {
      absl::StatusOr<int64_t> n = ContentLength(value);
      if (!n.ok()) return n.status();
      if (have_length && *n != out.content_length) {
        return absl::InvalidArgumentError("two different Content-Lengths");
      }
      have_length = true;
      out.content_length = *n;
    } else if (name == "transfer-encoding") {
      return absl::InvalidArgumentError(
          "request bodies must come with a Content-Length (no "
          "Transfer-Encoding)");
    } else if (name == "connection") {
      connection += "," + Lower(value);  // every Connection header counts
    }
    request.headers.emplace_back(std::move(name), std::string(value));
  }
  // Its comma-separated tokens.
  bool close = false, keep_alive = false;
  for (size_t at = 0; at < connection.size();) {
    size_t end = connection.find(',', at);
    if (end == std::string::npos) end = connection.size();
    std::string_view token =
        Trim(std::string_view(connection).substr(at, end - at));
    close |= token == "close";
    keep_alive |= token == "keep-alive";
    at = end + 1;
  }
  request.keep_alive = request.http11 ? !close : keep_alive && !close;
  return out;
}

}  // namespace webnnm::server
