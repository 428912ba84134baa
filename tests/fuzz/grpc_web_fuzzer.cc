// libFuzzer target: the grpc-web bridge's parsing of what a browser sends —
// the request body (binary, or base64 in text mode: the first byte's low bit
// chooses) and the grpc-timeout header. Errors must say why; a decoded
// message must frame back to the body it came from.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "server/rpc/grpc_web.h"

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
  return 0;
}
