// What HttpServer (http_server.cc) runs on: TLS contexts through OpenSSL,
// a client connection (plain or TLS) with its non-blocking reads and
// deadline-bound writes, and the listening socket.
#ifndef WEBNNM_SERVER_RPC_HTTP_CONNECTION_H_
#define WEBNNM_SERVER_RPC_HTTP_CONNECTION_H_

#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/rpc/http_server.h"

namespace webnnm::server::http {

using Clock = std::chrono::steady_clock;

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslContext = std::unique_ptr<SSL_CTX, SslCtxFree>;

// OpenSSL's last error, in words (its queue cleared).
std::string OpenSslError();
// A server context (TLS 1.2 or later) of the PEM files; InvalidArgument
// naming the file that does not do (and saying when the two look swapped).
absl::StatusOr<SslContext> MakeTlsContext(const std::string& certificate,
                                          const std::string& private_key);

// One client connection; owned by the gate while it waits for a request,
// by a worker while that request runs.
struct Connection {
  int fd = -1;
  SSL* ssl = nullptr;
  bool handshaken = false;
  bool want_write = false;  // TLS waits to write before it can read
  bool idle = false;        // kept alive, no byte of the next request yet
  // The current request's head, once parsed (so that a body arriving in
  // many pieces is not searched and parsed again each time).
  std::optional<RequestHead> head;
  size_t head_end = 0;
  bool continued = false;  // "100 Continue" sent for this request
  std::string in;          // bytes read and not yet taken as a request
  std::string ip;
  Clock::time_point since, deadline;

  ~Connection() {
    if (ssl) SSL_free(ssl);
    if (fd >= 0) close(fd);
  }
};

constexpr ssize_t kWouldBlock = -1;
constexpr ssize_t kBroken = -2;

// Some bytes, 0 at the end of the stream, kWouldBlock or kBroken.
ssize_t Receive(Connection& c, char* data, size_t size);

// Writes everything within `timeout` in all (a client that reads too
// slowly is dropped, not waited for), giving up at once when `stop` turns
// true.
bool WriteAll(Connection& c, std::string_view data,
              std::chrono::milliseconds timeout,
              const std::atomic<bool>& stop);

// A non-blocking socket listening on host:port (port 0: any free one).
absl::StatusOr<int> Listen(const std::string& host, int port);
// The port a socket is bound to (-1 when it cannot be told).
int BoundPort(int fd);
// A peer's address as text.
std::string PeerIp(const sockaddr_storage& address);

}  // namespace webnnm::server::http

#endif  // WEBNNM_SERVER_RPC_HTTP_CONNECTION_H_
