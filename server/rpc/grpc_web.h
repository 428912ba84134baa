// grpc-web over HTTP/1.1, in the daemon (webnnmd --http-listen): each
// request is forwarded into the daemon's own gRPC server through its
// in-process channel with a generic stub, so authentication, limits and
// handlers are exactly those of native gRPC (the wire format:
// grpc/grpc doc/PROTOCOL-WEB.md).
//
// - POST /<package>.<Service>/<Method> with content type
//   application/grpc-web[+proto] (binary) or application/grpc-web-text
//   [+proto] (base64; each response frame encoded on its own); the method
//   must be on the allow-list (webnnm.v1.Webnnm, grpc.health.v1.Health,
//   inference.GRPCInferenceService) and unary or server-streaming, else
//   UNIMPLEMENTED.
// - Request headers become call metadata (authorization, custom ones);
//   grpc-timeout becomes the call's deadline.
// - Each streamed message is flushed as it arrives; the response ends with
//   the trailers frame (flag 0x80). An error before any message is a
//   trailers-only response (grpc-status and grpc-message as HTTP headers).
// - A browser that disconnects cancels the call.
// - CORS only for the configured origins (preflights included).
#ifndef WEBNNM_SERVER_RPC_GRPC_WEB_H_
#define WEBNNM_SERVER_RPC_GRPC_WEB_H_

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"

namespace httplib {
class Server;
}

namespace webnnm::server {

struct GrpcWebOptions {
  std::string listen;  // HOST:PORT (port 0: a free one)
  std::set<std::string> cors_origins;
  int64_t max_message_bytes = 16 << 20;
  int threads = 32;  // HTTP workers (each open stream holds one)
};

class GrpcWebBridge {
 public:
  // Binds the listener (the port is known after this) and starts serving.
  static absl::StatusOr<std::unique_ptr<GrpcWebBridge>> Start(
      grpc::Server& server, GrpcWebOptions options);
  ~GrpcWebBridge();

  int port() const { return port_; }
  // Stops accepting and ends open streams.
  void Stop();

 private:
  GrpcWebBridge() = default;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

// The pieces, for tests.
namespace grpc_web {

// "10S", "500m" -> microseconds, at most a year (longer deadlines are
// clamped, not overflowed); nullopt for a malformed value.
std::optional<int64_t> ParseTimeout(const std::string& value);
// grpc-message's percent-encoding.
std::string PercentEncode(const std::string& text);
// The message of a request body: base64-decoded in text mode, then exactly
// one uncompressed DATA frame whose length matches (InvalidArgument
// otherwise).
absl::StatusOr<std::string> DecodeRequest(bool text, const std::string& body);
// A frame: flags, big-endian length, payload.
std::string Frame(uint8_t flags, const std::string& payload);

}  // namespace grpc_web

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_GRPC_WEB_H_
