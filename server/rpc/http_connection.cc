#include "server/rpc/http_connection.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>

#include "engine/base/strings.h"

namespace webnnm::server::http {
namespace {

bool FileHolds(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str().find(text) != std::string::npos;
}

}  // namespace

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

absl::StatusOr<SslContext> MakeTlsContext(const std::string& certificate,
                                          const std::string& private_key) {
  if (certificate.empty() || private_key.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs both a certificate and a private key");
  }
  SslContext ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return absl::InternalError("OpenSSL cannot make a TLS context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE |
                                  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  ERR_clear_error();
  const std::string swapped =
      " (the certificate and the private key look swapped)";
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), certificate.c_str()) !=
      1) {
    std::string reason = OpenSslError();
    return absl::InvalidArgumentError(
        StrCat("cannot use '", certificate, "' as the TLS certificate: ",
               reason,
               FileHolds(certificate, "PRIVATE KEY-----") ? swapped : ""));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), private_key.c_str(),
                                  SSL_FILETYPE_PEM) != 1) {
    std::string reason = OpenSslError();
    return absl::InvalidArgumentError(StrCat(
        "cannot use '", private_key, "' as the TLS private key: ", reason,
        FileHolds(private_key, "CERTIFICATE-----") ? swapped : ""));
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        StrCat("the TLS private key '", private_key,
               "' does not belong to the certificate '", certificate, "'"));
  }
  return ctx;
}

// Some bytes, 0 at the end of the stream, kWouldBlock or kBroken.
ssize_t Receive(Connection& c, char* data, size_t size) {
  if (c.ssl) {
    ERR_clear_error();
    int n = SSL_read(c.ssl, data, static_cast<int>(std::min<size_t>(size,
                                                                    INT_MAX)));
    if (n > 0) return n;
    int error = SSL_get_error(c.ssl, n);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      c.want_write = error == SSL_ERROR_WANT_WRITE;
      return kWouldBlock;
    }
    return error == SSL_ERROR_ZERO_RETURN ? 0 : kBroken;
  }
  for (;;) {
    ssize_t n = recv(c.fd, data, size, 0);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? kWouldBlock : kBroken;
  }
}

// Writes everything within `timeout` in all (a client that reads too
// slowly is dropped, not waited for), giving up at once when `stop` turns
// true.
bool WriteAll(Connection& c, std::string_view data,
              std::chrono::milliseconds timeout,
              const std::atomic<bool>& stop) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!data.empty()) {
    short want = POLLOUT;
    if (c.ssl) {
      ERR_clear_error();
      int n = SSL_write(
          c.ssl, data.data(),
          static_cast<int>(std::min<size_t>(data.size(), INT_MAX)));
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      int error = SSL_get_error(c.ssl, n);
      if (error == SSL_ERROR_WANT_READ) {
        want = POLLIN;
      } else if (error != SSL_ERROR_WANT_WRITE) {
        return false;
      }
    } else {
      ssize_t n = send(c.fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    }
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
      if (left <= 0 || stop.load()) return false;
      pollfd p{c.fd, want, 0};
      int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 200)));
      if (ready < 0 && errno != EINTR) return false;
      if (ready > 0) {
        if (p.revents & (POLLERR | POLLNVAL)) return false;
        break;
      }
    }
  }
  return true;
}

absl::StatusOr<int> Listen(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(),
                  &hints, &found) != 0 ||
      found == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("cannot resolve '", host, "' to listen for HTTP"));
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 256) == 0) {
      break;
    }
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(StrCat("cannot listen for HTTP on ", host,
                                         ":", port, " (address in use?)"));
  }
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return -1;
  }
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
}

std::string PeerIp(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr,
              text, sizeof(text));
  } else if (address.ss_family == AF_INET6) {
    inet_ntop(AF_INET6,
              &reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr,
              text, sizeof(text));
  }
  return text;
}

}  // namespace webnnm::server::http
