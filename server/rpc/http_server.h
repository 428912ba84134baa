// A small HTTP/1.1 server for the grpc-web bridge and the front end, built
// so that no client can starve it (issue 22, item 1):
//
// - One thread, the gate, accepts connections and reads each request —
//   head and body — with poll(): a connection holds no worker until its
//   whole request has arrived. A request must arrive within
//   `request_timeout` (plus a second per MiB of body), its head within
//   16 KiB and its body within `max_body_bytes` (else 408, 431 or 413 and
//   the connection is closed). At most `max_connections` wait in the gate;
//   when full, the one that has waited longest is dropped.
// - Whole requests run on `workers` threads. A handler answers with a whole
//   body or a stream of chunks (Transfer-Encoding: chunked); every write
//   must progress within `write_timeout` (a client that stops reading is
//   dropped).
// - A streaming handler asks ClientGone() while it waits for its next
//   message: the peer's FIN or RST, seen by poll() without writing, or the
//   server stopping.
// - With a certificate and key: HTTPS only (TLS 1.2 or later); the
//   handshake runs in the gate too, under the same deadline.
// - Keep-alive (HTTP/1.1's default; `Connection: close` honoured): after a
//   whole response the connection returns to the gate, which waits at most
//   `idle_timeout` for its next request.
#ifndef WEBNNM_SERVER_RPC_HTTP_SERVER_H_
#define WEBNNM_SERVER_RPC_HTTP_SERVER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace webnnm::server {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;
  std::string target;  // as sent
  std::string path;    // the target without its query
  bool http11 = true;  // HTTP/1.1 (else 1.0)
  bool keep_alive = true;
  HttpHeaders headers;  // names in lower case, in order
  std::string body;
  std::string remote_ip;

  bool HasHeader(std::string_view name) const;  // name in lower case
  // The first value of a header; empty when absent.
  std::string Header(std::string_view name) const;
};

// A request's head — the request line and the header lines, each ending in
// CRLF (a bare LF is accepted), through the blank line — and the body's
// length it announces. InvalidArgument, saying what is wrong, for a
// malformed line, a version other than HTTP/1.0 or 1.1, a Content-Length
// that is not one decimal number, or a chunked request body (not taken).
struct RequestHead {
  HttpRequest request;  // without body and remote_ip
  int64_t content_length = 0;
};
absl::StatusOr<RequestHead> ParseRequestHead(std::string_view head);
// Where a request's head ends in `bytes` (just after its blank line: an
// empty line, or a lone CR, ending in LF — where ParseRequestHead stops),
// if within the first `most` bytes; npos otherwise.
size_t RequestHeadEnd(std::string_view bytes, size_t most);

// How a handler answers: one Send, or StartStream, Writes and EndStream.
class HttpResponder {
 public:
  virtual ~HttpResponder() = default;
  // A whole response (with Content-Length).
  virtual void Send(int status, const HttpHeaders& headers,
                    std::string_view body) = 0;
  // A streamed response: the head now, then each Write as one chunk, sent
  // at once. False once the client is gone (the response is then over).
  virtual bool StartStream(int status, const HttpHeaders& headers) = 0;
  virtual bool Write(std::string_view data) = 0;
  virtual void EndStream() = 0;
  // Whether the client has closed its side, or the server is stopping —
  // found without writing.
  virtual bool ClientGone() = 0;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponder&)>;

struct HttpServerOptions {
  std::string host;  // an address literal or a name; IPv6 without brackets
  int port = 0;      // 0: a free one
  int workers = 32;
  int max_connections = 256;  // waiting in the gate
  int64_t max_body_bytes = 22 << 20;
  std::chrono::milliseconds request_timeout{10000};
  std::chrono::milliseconds write_timeout{10000};
  std::chrono::milliseconds idle_timeout{60000};
  // PEM files; both or neither.
  std::string tls_certificate, tls_private_key;
};

// Whether a certificate and a private key load and belong together:
// InvalidArgument naming the file and OpenSSL's reason otherwise (a key
// that does not match the certificate says so: swapped files are the usual
// cause).
absl::Status CheckTlsFiles(const std::string& certificate,
                           const std::string& private_key);

class HttpServer {
 public:
  // Binds (the port is known after this) and starts the gate and workers.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  // Stops accepting, drops waiting connections, ends open streams (their
  // ClientGone() turns true) and joins every thread.
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_HTTP_SERVER_H_
