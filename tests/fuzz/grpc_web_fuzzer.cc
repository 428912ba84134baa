// libFuzzer target: the grpc-web bridge's parsing of what a browser sends —
// the HTTP/1.1 request head (request line, headers, Content-Length), the
// request body (binary, or base64 in text mode: the first byte's low bit
// chooses) and the grpc-timeout header. Errors must say why; a decoded
// message must frame back to the body it came from; a parsed head must
// hold what the listener relies on.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "server/rpc/grpc_web.h"
#include "server/rpc/http_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  namespace web = webnnm::server::grpc_web;
  const bool text = data[0] & 1;
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  absl::StatusOr<std::string> message = web::DecodeRequest(text, body);
  if (!message.ok()) {
    if (message.status().message().empty()) __builtin_trap();
  } else if (!text && web::Frame(0, *message) != body) {
    __builtin_trap();
  }
  std::optional<int64_t> timeout = web::ParseTimeout(body);
  if (timeout && *timeout < 0) __builtin_trap();
  (void)web::PercentEncode(body);
  absl::StatusOr<webnnm::server::RequestHead> head =
      webnnm::server::ParseRequestHead(body);
  if (!head.ok()) {
    if (head.status().message().empty()) __builtin_trap();
  } else {
    const webnnm::server::HttpRequest& r = head->request;
    if (head->content_length < 0 || r.method.empty() || r.path.empty() ||
        r.path[0] != '/' || r.target.rfind(r.path, 0) != 0) {
      __builtin_trap();
    }
    for (const auto& [name, value] : r.headers) {
      for (char c : name) {
        if (c >= 'A' && c <= 'Z') __builtin_trap();  // names lower-cased
      }
      if (r.Header(name).empty() && !value.empty() && !r.HasHeader(name)) {
        __builtin_trap();
      }
    }
    if (r.HasHeader("grpc-timeout")) {
      std::optional<int64_t> t = web::ParseTimeout(r.Header("grpc-timeout"));
      if (t && *t < 0) __builtin_trap();
    }
  }
  return 0;
}
