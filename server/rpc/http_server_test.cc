// HttpServer and ParseRequestHead: the head's parsing, keep-alive and
// pipelining, the limits (head, body, time), streams and a client that
// leaves without a word — over real loopback sockets.
#include "server/rpc/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace webnnm::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ParseRequestHead, ReadsTheRequestLineAndHeaders) {
  absl::StatusOr<RequestHead> head = ParseRequestHead(
      "POST /a.B/C?x=1 HTTP/1.1\r\nHost: h\r\nContent-Type:  application/"
      "grpc-web \r\nContent-Length: 12\r\nX-Many: 1\r\nx-many: 2\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->request.method, "POST");
  EXPECT_EQ(head->request.target, "/a.B/C?x=1");
  EXPECT_EQ(head->request.path, "/a.B/C");
  EXPECT_TRUE(head->request.http11);
  EXPECT_TRUE(head->request.keep_alive);
  EXPECT_EQ(head->content_length, 12);
  EXPECT_EQ(head->request.Header("content-type"), "application/grpc-web");
  EXPECT_EQ(head->request.Header("x-many"), "1");  // the first
  EXPECT_FALSE(head->request.HasHeader("cookie"));
  // HTTP/1.0 closes unless asked; bare LFs are taken.
  head = ParseRequestHead("GET / HTTP/1.0\nHost: h\n\n");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_FALSE(head->request.keep_alive);
  head = ParseRequestHead("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(head.ok());
  EXPECT_FALSE(head->request.keep_alive);
}

TEST(ParseRequestHead, EveryConnectionHeaderCountsByToken) {
  absl::StatusOr<RequestHead> head = ParseRequestHead(
      "GET / HTTP/1.1\r\nConnection: close\r\nConnection: upgrade\r\n\r\n");
  ASSERT_TRUE(head.ok());
  EXPECT_FALSE(head->request.keep_alive);
  head = ParseRequestHead("GET / HTTP/1.1\r\nConnection: closed-ish\r\n\r\n");
  ASSERT_TRUE(head.ok());
  EXPECT_TRUE(head->request.keep_alive);  // a token, not a substring
}

TEST(RequestHeadEnd, EndsWhereTheParserStops) {
  // A lone CR line ends the head for both (no body offset disagreement).
  const std::string bytes =
      "POST /x HTTP/1.1\n\r\nContent-Length: 5\r\n\r\nhello";
  const size_t end = RequestHeadEnd(bytes, 16384);
  EXPECT_EQ(end, std::string("POST /x HTTP/1.1\n\r\n").size());
  absl::StatusOr<RequestHead> head = ParseRequestHead(bytes.substr(0, end));
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->content_length, 0);
  EXPECT_EQ(RequestHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n", 16384),
            std::string::npos);
  EXPECT_EQ(RequestHeadEnd("GET / HTTP/1.1\r\n\r\n", 8), std::string::npos);
}

TEST(ParseRequestHead, RefusesWhatItCannotServeSayingWhy) {
  for (const auto& [head, why] : std::vector<std::pair<std::string, std::string>>{
           {"GET /\r\n\r\n", "METHOD TARGET HTTP/1.x"},
           {"GET / HTTP/2.0\r\n\r\n", "HTTP/1.0 and HTTP/1.1 only"},
           {"GET x HTTP/1.1\r\n\r\n", "starting with '/'"},
           {"G(T / HTTP/1.1\r\n\r\n", "not a token"},
           {"GET / HTTP/1.1\r\nno colon\r\n\r\n", "header line 1"},
           {"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "decimal"},
           {"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
            "at most 18 digits"},
           {"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "two different"},
           {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "Content-Length"},
           {"GET / HTTP/1.1\r\nX: a\x01z\r\n\r\n", "control byte"},
           {"", "empty"}}) {
    absl::StatusOr<RequestHead> parsed = ParseRequestHead(head);
    ASSERT_FALSE(parsed.ok()) << head;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(why)) << head;
  }
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  return fd;
}

void SendAll(int fd, const std::string& data) {
  ASSERT_EQ(send(fd, data.data(), data.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(data.size()));
}

// Everything until the peer closes or `until` appears (at most `ms`).
std::string Receive(int fd, const std::string& until = "", int ms = 5000) {
  std::string got;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    if (!until.empty() && got.find(until) != std::string::npos) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buffer[4096];
    ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    got.append(buffer, static_cast<size_t>(n));
  }
  return got;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options = {}) {
    options.host = "127.0.0.1";
    absl::StatusOr<std::unique_ptr<HttpServer>> started = HttpServer::Start(
        options, [this](const HttpRequest& req, HttpResponder& res) {
          if (req.path == "/stream") {
            res.StartStream(200, {{"Content-Type", "text/plain"}});
            res.Write("first");
            while (!res.ClientGone()) {
              std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            gone_ = true;
            return;
          }
          if (req.path == "/throw") throw std::runtime_error("boom");
          res.Send(200, {{"Content-Type", "text/plain"}},
                   "echo " + req.path + " " + req.body);
        });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
  }

  std::unique_ptr<HttpServer> server_;
  std::atomic<bool> gone_{false};
};

TEST_F(HttpServerTest, KeepsAliveAndAnswersPipelinedRequestsInOrder) {
  Start();
  int fd = Connect(server_->port());
  SendAll(fd,
          "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz"
          "GET /b HTTP/1.1\r\n\r\n");
  std::string got = Receive(fd, "echo /b ");
  EXPECT_THAT(got, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(got, HasSubstr("Connection: keep-alive"));
  EXPECT_LT(got.find("echo /a xyz"), got.find("echo /b "));
  SendAll(fd, "GET /c HTTP/1.1\r\nConnection: close\r\n\r\n");
  got = Receive(fd);
  EXPECT_THAT(got, HasSubstr("Connection: close"));
  EXPECT_THAT(got, HasSubstr("echo /c"));
  close(fd);
}

TEST_F(HttpServerTest, RefusesBigHeadsBigBodiesAndSlowRequests) {
  Start({.max_body_bytes = 100, .request_timeout = std::chrono::milliseconds(500)});
  int fd = Connect(server_->port());
  SendAll(fd, "GET / HTTP/1.1\r\nX: " + std::string(20000, 'a'));
  EXPECT_THAT(Receive(fd), StartsWith("HTTP/1.1 431 "));
  close(fd);
  fd = Connect(server_->port());
  SendAll(fd, "POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n");
  EXPECT_THAT(Receive(fd), StartsWith("HTTP/1.1 413 "));
  close(fd);
  fd = Connect(server_->port());
  SendAll(fd, "GET /slow HTTP/1.1\r\n");  // never finished
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THAT(Receive(fd), StartsWith("HTTP/1.1 408 "));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  close(fd);
  fd = Connect(server_->port());
  SendAll(fd, "BAD\r\n\r\n");
  EXPECT_THAT(Receive(fd), StartsWith("HTTP/1.1 400 "));
  close(fd);
}

TEST_F(HttpServerTest, SlowClientsHoldNoWorker) {
  // One worker, 50 clients that never finish their request: another
  // client is answered at once.
  Start({.workers = 1});
  std::vector<int> slow;
  for (int i = 0; i < 50; ++i) {
    slow.push_back(Connect(server_->port()));
    SendAll(slow.back(), "GET / HTTP/1.1\r\nHost: ");
  }
  int fd = Connect(server_->port());
  auto t0 = std::chrono::steady_clock::now();
  SendAll(fd, "GET /quick HTTP/1.1\r\n\r\n");
  EXPECT_THAT(Receive(fd, "echo /quick"), HasSubstr("echo /quick"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  close(fd);
  for (int s : slow) close(s);
}

TEST_F(HttpServerTest, AnswersExpectContinueAndKeepsNoLengthOn204) {
  Start();
  int fd = Connect(server_->port());
  SendAll(fd,
          "POST /up HTTP/1.1\r\nContent-Length: 4\r\nExpect: "
          "100-continue\r\n\r\n");
  EXPECT_THAT(Receive(fd, "100 Continue\r\n\r\n"),
              StartsWith("HTTP/1.1 100 Continue\r\n\r\n"));
  SendAll(fd, "data");
  EXPECT_THAT(Receive(fd, "echo /up data"), HasSubstr("echo /up data"));
  close(fd);
}

TEST_F(HttpServerTest, AStreamNoticesAClientThatLeftWithoutWriting) {
  Start();
  int fd = Connect(server_->port());
  SendAll(fd, "GET /stream HTTP/1.1\r\n\r\n");
  std::string got = Receive(fd, "first");
  EXPECT_THAT(got, HasSubstr("Transfer-Encoding: chunked"));
  EXPECT_THAT(got, HasSubstr("5\r\nfirst\r\n"));
  EXPECT_FALSE(gone_);
  close(fd);
  auto t0 = std::chrono::steady_clock::now();
  while (!gone_ &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone_);
}

TEST_F(HttpServerTest, AHandlerThatThrowsIsA500) {
  Start();
  int fd = Connect(server_->port());
  SendAll(fd, "GET /throw HTTP/1.1\r\n\r\n");
  std::string got = Receive(fd);
  EXPECT_THAT(got, StartsWith("HTTP/1.1 500 "));
  EXPECT_THAT(got, HasSubstr("Connection: close"));
  close(fd);
  // The server goes on.
  fd = Connect(server_->port());
  SendAll(fd, "GET /after HTTP/1.1\r\n\r\n");
  EXPECT_THAT(Receive(fd, "echo /after"), HasSubstr("echo /after"));
  close(fd);
}

TEST(CheckTlsFiles, SaysWhatIsWrong) {
  absl::Status missing = CheckTlsFiles("/nonexistent/cert.pem", "/nope.pem");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.message()),
              HasSubstr("cannot use '/nonexistent/cert.pem' as the TLS "
                        "certificate"));
  EXPECT_FALSE(CheckTlsFiles("", "").ok());
}

}  // namespace
}  // namespace webnnm::server
