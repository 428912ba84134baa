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
// - A browser that disconnects cancels the call, noticed while the call
//   waits for its next message (without writing to the browser).
// - Server streams are bounded (GrpcWebOptions); the HTTP/1.1 listener
//   itself (http_server.h) reads requests without holding a worker and
//   drops slow ones.
// - CORS only for the configured origins (preflights included).
#ifndef WEBNNM_SERVER_RPC_GRPC_WEB_H_
#define WEBNNM_SERVER_RPC_GRPC_WEB_H_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"

namespace webnnm::server {

class HttpServer;
class HttpResponder;
struct HttpRequest;

// The listener's limits (http_server.h says how each is enforced).
struct GrpcWebOptions {
  std::string listen;  // HOST:PORT (port 0: a free one)
  std::set<std::string> cors_origins;
  int64_t max_message_bytes = 16 << 20;
  int threads = 32;  // HTTP workers (each open stream holds one)
  // Server streams open at once: in all (at most threads - 4, so that
  // unary calls and the front end always find a worker), per client (the
  // principal of a valid bearer token, else its address), and — when tokens are
  // required — for calls without a token (health watches). Beyond:
  // RESOURCE_EXHAUSTED.
  int max_streams = 24;
  int max_streams_per_client = 8;
  int max_anonymous_streams = 4;
  bool tokens_required = false;
  // The principal a request's `authorization` header authenticates (none
  // for a missing or unknown token); unset without tokens.
  std::function<std::optional<std::string>(std::string_view)> principal_of;
  // Connections still sending their request, and how long one may take.
  int max_connections = 256;
  std::chrono::milliseconds request_timeout{10000};
  // HTTPS with these PEM files (the gRPC listener's); both or neither.
  std::string tls_certificate, tls_private_key;
  // ONNX Runtime Web's browser files, served under /ort/ (only the few the
  // job page loads, by name); none when empty.
  std::string web_runtime_dir;
  // Other endpoints (ops_http.h: /metrics and the probes), tried first: true
  // when it answered the request.
  std::function<bool(const HttpRequest&, HttpResponder&)> also;
};

class GrpcWebBridge {
 public:
  // Binds the listener (the port is known after this) and starts serving.
  static absl::StatusOr<std::unique_ptr<GrpcWebBridge>> Start(
      grpc::Server& server, GrpcWebOptions options);
  ~GrpcWebBridge();

  int port() const;
  // Stops accepting and ends open streams.
  void Stop();

 private:
  GrpcWebBridge() = default;
  std::unique_ptr<HttpServer> http_;
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
