// HttpServer (http_server.h): the gate (accepting and reading requests with
// poll), the workers (running handlers), TLS through OpenSSL.
#include "server/rpc/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "engine/base/strings.h"
#include "server/rpc/http_connection.h"

namespace webnnm::server {

namespace {

using http::BoundPort;
using http::Clock;
using http::Connection;
using http::kBroken;
using http::kWouldBlock;
using http::Listen;
using http::MakeTlsContext;
using http::PeerIp;
using http::Receive;
using http::SslContext;
using http::WriteAll;
constexpr size_t kMaxHead = 16 << 10;
// The most of a connection's read buffer kept between requests (the rest
// of a large body's buffer is freed, and webnnmd maps large blocks on
// their own: main.cc's mallopt).
constexpr size_t kKeptBuffer = 1 << 20;

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string Head(int status, const HttpHeaders& headers, bool keep_alive,
                 std::string framing) {
  if (status == 204 || status == 304) framing.clear();  // no body, no length
  std::string head = StrCat("HTTP/1.1 ", status, " ", Reason(status), "\r\n");
  for (const auto& [name, value] : headers) {
    head += StrCat(name, ": ", value, "\r\n");
  }
  head += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  head += framing + "\r\n";
  return head;
}

// One non-blocking write from the gate (best effort: what does not fit in
// the socket's buffer is lost).
void Write(Connection& c, std::string_view bytes) {
  if (c.ssl) {
    if (!c.handshaken) return;
    (void)SSL_write(c.ssl, bytes.data(), static_cast<int>(bytes.size()));
    ERR_clear_error();
  } else {
    (void)send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }
}

// A short answer from the gate to a request it refuses; the connection is
// then closed.
void Refuse(Connection& c, int status, const std::string& why) {
  std::string body = StrCat("webnnmd: ", why, "\n");
  Write(c, Head(status, {{"Content-Type", "text/plain"}}, false,
                StrCat("Content-Length: ", body.size(), "\r\n")) +
               body);
  shutdown(c.fd, SHUT_WR);  // the answer first, then the end
}

class Responder final : public HttpResponder {
 public:
  Responder(Connection& c, const HttpRequest& request,
            std::chrono::milliseconds timeout, const std::atomic<bool>& stop)
      : c_(c),
        head_only_(request.method == "HEAD"),
        keep_alive_(request.keep_alive),
        chunked_(request.http11),
        timeout_(timeout),
        stop_(stop) {}

  void Send(int status, const HttpHeaders& headers,
            std::string_view body) override {
    if (state_ != kNone) return;
    state_ = kDone;
    // A second more per 64 KiB of body: a big body to a slow reader.
    const auto timeout =
        timeout_ + std::chrono::milliseconds(body.size() >> 6);
    ok_ = WriteAll(c_,
                   Head(status, headers, keep_alive_,
                        StrCat("Content-Length: ", body.size(), "\r\n")) +
                       (head_only_ ? std::string() : std::string(body)),
                   timeout, stop_);
  }

  bool StartStream(int status, const HttpHeaders& headers) override {
    if (state_ != kNone) return false;
    state_ = kStreaming;
    if (!chunked_) keep_alive_ = false;  // HTTP/1.0: the end is the close
    ok_ = WriteAll(c_,
                   Head(status, headers, keep_alive_,
                        chunked_ ? "Transfer-Encoding: chunked\r\n" : ""),
                   timeout_, stop_);
    return ok_;
  }

  bool Write(std::string_view data) override {
    if (state_ != kStreaming || !ok_) return false;
    if (data.empty() || head_only_) return true;  // (empty: the end chunk)
    if (chunked_) {
      char size[20];
      std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
      ok_ = WriteAll(c_, StrCat(size, data, "\r\n"), timeout_, stop_);
    } else {
      ok_ = WriteAll(c_, data, timeout_, stop_);
    }
    return ok_;
  }

  void EndStream() override {
    if (state_ != kStreaming) return;
    state_ = kDone;
    if (ok_ && chunked_ && !head_only_) {
      ok_ = WriteAll(c_, "0\r\n\r\n", timeout_, stop_);
    }
  }

  bool ClientGone() override {
    if (stop_.load() || !ok_) return true;
    pollfd p{c_.fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 &&
           (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
  }

  // After a handler's exception: a 500 when nothing was sent, and the
  // connection is not reused either way.
  void Abandon() {
    keep_alive_ = false;
    if (state_ == kNone) {
      Send(500, {{"Content-Type", "text/plain"}},
           "webnnmd: the request failed inside the daemon\n");
    }
    ok_ = false;
  }

  // Ends whatever the handler left open; whether the connection may serve
  // another request.
  bool Finish() {
    if (state_ == kNone) {
      Send(500, {{"Content-Type", "text/plain"}},
           "webnnmd: the handler gave no response\n");
    }
    EndStream();
    return ok_ && keep_alive_;
  }

 private:
  enum State { kNone, kStreaming, kDone };
  Connection& c_;
  const bool head_only_;
  bool keep_alive_;
  const bool chunked_;
  const std::chrono::milliseconds timeout_;
  const std::atomic<bool>& stop_;
  State state_ = kNone;
  bool ok_ = true;
};

}  // namespace

absl::Status CheckTlsFiles(const std::string& certificate,
                           const std::string& private_key) {
  absl::StatusOr<SslContext> ctx = MakeTlsContext(certificate, private_key);
  return ctx.ok() ? absl::OkStatus() : ctx.status();
}

struct HttpServer::Impl {
  struct Work {
    std::unique_ptr<Connection> connection;
    HttpRequest request;
  };
  enum Outcome { kKeep, kDrop, kDispatched };

  HttpServerOptions options;
  HttpHandler handler;
  SslContext tls;
  int listen_fd = -1;
  int wake_fd = -1;
  int port = 0;
  std::atomic<bool> stopping{false};
  std::thread gate;
  std::vector<std::thread> workers;

  absl::Mutex mu;
  std::deque<Work> queue ABSL_GUARDED_BY(mu);
  std::vector<std::unique_ptr<Connection>> returned ABSL_GUARDED_BY(mu);
  bool closed ABSL_GUARDED_BY(mu) = false;

  // The gate's alone: the connections waiting for a request, and the
  // bytes they hold (recounted each round).
  std::vector<std::unique_ptr<Connection>> waiting;
  int64_t buffered = 0;

  int64_t BufferBudget() const {
    return 4 * options.max_body_bytes + (16 << 20);
  }

  ~Impl() {
    if (listen_fd >= 0) close(listen_fd);
    if (wake_fd >= 0) close(wake_fd);
  }

  void Wake() {
    uint64_t one = 1;
    (void)!write(wake_fd, &one, sizeof(one));
  }

  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return !queue.empty() || closed;
  }

  Outcome TryDispatch(std::unique_ptr<Connection>& c) {
    if (!c->head) {
      const size_t end = RequestHeadEnd(c->in, kMaxHead);
      if (end == std::string::npos) {
        if (c->in.size() <= kMaxHead) return kKeep;
        Refuse(*c, 431, "the request's head exceeds 16 KiB");
        return kDrop;
      }
      absl::StatusOr<RequestHead> head =
          ParseRequestHead(std::string_view(c->in).substr(0, end));
      if (!head.ok()) {
        Refuse(*c, 400, std::string(head.status().message()));
        return kDrop;
      }
      if (head->content_length > options.max_body_bytes) {
        Refuse(*c, 413,
               StrCat("the request's body exceeds ", options.max_body_bytes,
                      " bytes"));
        return kDrop;
      }
      c->head = std::move(*head);
      c->head_end = end;
      // A second more per MiB of body.
      c->deadline += std::chrono::seconds(c->head->content_length >> 20);
    }
    const size_t length = static_cast<size_t>(c->head->content_length);
    if (c->in.size() - c->head_end < length) {
      if (!c->continued &&
          (c->head->request.Header("expect") == "100-continue" ||
           c->head->request.Header("expect") == "100-Continue")) {
        c->continued = true;  // the client waits for this before its body
        static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
        Write(*c, kContinue);
      }
      return kKeep;
    }
    HttpRequest request = std::move(c->head->request);
    request.body = c->in.substr(c->head_end, length);
    request.remote_ip = c->ip;
    c->in.erase(0, c->head_end + length);
    // A large body's buffer is not kept for the connection's next request.
    if (c->in.capacity() > kKeptBuffer) std::string(c->in).swap(c->in);
    c->head.reset();
    c->continued = false;
    {
      absl::MutexLock lock(&mu);
      if (static_cast<int>(queue.size()) < 4 * options.workers) {
        queue.push_back({std::move(c), std::move(request)});
        return kDispatched;
      }
    }
    Refuse(*c, 503, "every worker is busy; try again");
    return kDrop;
  }

  Outcome Advance(std::unique_ptr<Connection>& c) {
    if (c->ssl && !c->handshaken) {
      ERR_clear_error();
      int r = SSL_do_handshake(c->ssl);
      if (r != 1) {
        int error = SSL_get_error(c->ssl, r);
        ERR_clear_error();
        if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
          c->want_write = error == SSL_ERROR_WANT_WRITE;
          return kKeep;
        }
        return kDrop;
      }
      c->handshaken = true;
      c->want_write = false;
    }
    const size_t cap = kMaxHead + static_cast<size_t>(options.max_body_bytes) +
                       (64 << 10);
    bool ended = false;
    char buffer[64 << 10];
    while (c->in.size() < cap) {
      // What all waiting connections hold is bounded too.
      if (buffered >= BufferBudget()) {
        Refuse(*c, 503, "the daemon is receiving too much at once; try again");
        return kDrop;
      }
      ssize_t n = Receive(*c, buffer, sizeof(buffer));
      if (n == kWouldBlock) break;
      if (n <= 0) {
        ended = true;
        break;
      }
      if (c->idle) {
        c->idle = false;
        c->deadline = Clock::now() + options.request_timeout;
      }
      c->in.append(buffer, static_cast<size_t>(n));
      buffered += n;
    }
    Outcome outcome = TryDispatch(c);
    return outcome == kKeep && ended ? kDrop : outcome;
  }

  void Accept() {
    for (;;) {
      sockaddr_storage peer{};
      socklen_t length = sizeof(peer);
      int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &length,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE) {
          // Out of descriptors: free one for the next try, or wait.
          if (waiting.empty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          } else {
            DropOldest();
          }
        }
        return;
      }
      int yes = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      c->ip = PeerIp(peer);
      c->since = Clock::now();
      c->deadline = c->since + options.request_timeout;
      if (tls) {
        c->ssl = SSL_new(tls.get());
        if (!c->ssl) continue;
        SSL_set_fd(c->ssl, fd);
        SSL_set_accept_state(c->ssl);
      }
      if (static_cast<int>(waiting.size()) >= options.max_connections) {
        DropOldest();
      }
      waiting.push_back(std::move(c));
    }
  }

  // Makes room: the longest-waiting connection of the address that holds
  // the most (one client opening many cannot push out everyone else's).
  void DropOldest() {
    std::map<std::string_view, int> per_address;
    for (const auto& c : waiting) ++per_address[c->ip];
    std::string_view crowded;
    int most = 0;
    for (const auto& [ip, n] : per_address) {
      if (n > most) most = n, crowded = ip;
    }
    auto oldest = waiting.end();
    for (auto it = waiting.begin(); it != waiting.end(); ++it) {
      if ((*it)->ip == crowded &&
          (oldest == waiting.end() || (*it)->since < (*oldest)->since)) {
        oldest = it;
      }
    }
    if (oldest != waiting.end()) waiting.erase(oldest);
  }

  void TakeReturned() {
    std::vector<std::unique_ptr<Connection>> back;
    {
      absl::MutexLock lock(&mu);
      back.swap(returned);
    }
    for (std::unique_ptr<Connection>& c : back) {
      // A request already read (pipelined) is dispatched at once.
      if (!c->in.empty() && TryDispatch(c) != kKeep) continue;
      waiting.push_back(std::move(c));
    }
  }

  void Expire() {
    const Clock::time_point now = Clock::now();
    for (std::unique_ptr<Connection>& c : waiting) {
      if (now < c->deadline) continue;
      if (!c->in.empty()) Refuse(*c, 408, "the request came too slowly");
      c.reset();
    }
    std::erase(waiting, nullptr);
  }

  int PollTimeoutMs() const {
    Clock::time_point next = Clock::now() + std::chrono::seconds(1);
    for (const auto& c : waiting) next = std::min(next, c->deadline);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  next - Clock::now())
                  .count();
    return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 1000));
  }

  void GateLoop() {
    std::vector<pollfd> fds;
    while (!stopping.load()) {
      TakeReturned();
      buffered = 0;
      for (const auto& c : waiting) buffered += c->in.size();
      fds.assign({{listen_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}});
      for (const auto& c : waiting) {
        fds.push_back(
            {c->fd, static_cast<short>(c->want_write ? POLLOUT : POLLIN), 0});
      }
      const size_t polled = waiting.size();
      if (poll(fds.data(), fds.size(), PollTimeoutMs()) < 0 && errno != EINTR) {
        break;
      }
      if (fds[1].revents) {
        uint64_t count;
        (void)!read(wake_fd, &count, sizeof(count));
      }
      for (size_t i = 0; i < polled; ++i) {
        if (!fds[i + 2].revents) continue;
        if (Advance(waiting[i]) == kDrop) waiting[i].reset();
      }
      std::erase(waiting, nullptr);
      Expire();
      if (fds[0].revents & POLLIN) Accept();
    }
    waiting.clear();
  }

  void WorkerLoop() {
    for (;;) {
      Work work;
      {
        absl::MutexLock lock(&mu);
        mu.Await(absl::Condition(this, &Impl::HasWork));
        if (closed) return;  // what is still queued is not run
        work = std::move(queue.front());
        queue.pop_front();
      }
      Connection& c = *work.connection;
      Responder responder(c, work.request, options.write_timeout, stopping);
      try {
        handler(work.request, responder);
      } catch (const std::exception&) {
        // No request takes a worker (or the daemon) down: a 500 if nothing
        // was sent yet, else the connection is closed.
        responder.Abandon();
      }
      if (!responder.Finish() || stopping.load()) continue;  // closed
      c.idle = c.in.empty();
      c.since = Clock::now();
      c.deadline = c.since + (c.idle ? options.idle_timeout
                                     : options.request_timeout);
      {
        absl::MutexLock lock(&mu);
        returned.push_back(std::move(work.connection));
      }
      Wake();
    }
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    HttpServerOptions options, HttpHandler handler) {
  auto impl = std::make_unique<Impl>();
  if (!options.tls_certificate.empty() || !options.tls_private_key.empty()) {
    absl::StatusOr<SslContext> tls =
        MakeTlsContext(options.tls_certificate, options.tls_private_key);
    if (!tls.ok()) return tls.status();
    impl->tls = std::move(*tls);
  }
  absl::StatusOr<int> fd = Listen(options.host, options.port);
  if (!fd.ok()) return fd.status();
  impl->listen_fd = *fd;
  impl->port = BoundPort(*fd);
  impl->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->wake_fd < 0) return absl::InternalError("eventfd failed");
  options.workers = std::max(1, options.workers);
  options.max_connections = std::max(1, options.max_connections);
  impl->options = std::move(options);
  impl->handler = std::move(handler);
  Impl* raw = impl.get();
  for (int i = 0; i < raw->options.workers; ++i) {
    raw->workers.emplace_back([raw] { raw->WorkerLoop(); });
  }
  raw->gate = std::thread([raw] { raw->GateLoop(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const { return impl_->port; }

void HttpServer::Stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  impl_->Wake();
  if (impl_->gate.joinable()) impl_->gate.join();
  {
    absl::MutexLock lock(&impl_->mu);
    impl_->closed = true;
  }
  for (std::thread& t : impl_->workers) t.join();
  absl::MutexLock lock(&impl_->mu);
  impl_->queue.clear();
  impl_->returned.clear();
}

HttpServer::~HttpServer() { Stop(); }

}  // namespace webnnm::server
