#include "server/rpc/ops_http.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace webnnm::server {
namespace {

using ::testing::HasSubstr;

// Keeps what a handler sends.
struct Recorder : HttpResponder {
  int status = 0;
  HttpHeaders headers;
  std::string body;
  void Send(int s, const HttpHeaders& h, std::string_view b) override {
    status = s;
    headers = h;
    body = std::string(b);
  }
  bool StartStream(int, const HttpHeaders&) override { return false; }
  bool Write(std::string_view) override { return false; }
  void EndStream() override {}
  bool ClientGone() override { return false; }
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
};

HttpRequest Get(std::string path, std::string method = "GET") {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.target = r.path;
  return r;
}

OpsEndpoints Ops(absl::Status ready, bool token_required) {
  OpsEndpoints ops;
  ops.metrics = [] { return std::string("x_total 1\n"); };
  ops.ready = [ready] { return ready; };
  ops.token_required = token_required;
  ops.authorized = [](std::string_view header) {
    return header == "Bearer good";
  };
  return ops;
}

TEST(OpsHttp, ProbesSayAliveAndReadyOrWhyNot) {
  Recorder r;
  EXPECT_TRUE(ServeOps(Ops(absl::OkStatus(), true), Get("/healthz"), r));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");

  EXPECT_TRUE(ServeOps(Ops(absl::OkStatus(), true), Get("/readyz"), r));
  EXPECT_EQ(r.status, 200);

  EXPECT_TRUE(ServeOps(
      Ops(absl::UnavailableError("the job workers are not running"), false),
      Get("/readyz"), r));
  EXPECT_EQ(r.status, 503);
  EXPECT_THAT(r.body, HasSubstr("the job workers are not running"));
}

TEST(OpsHttp, MetricsAskForATokenOnlyWhereRequired) {
  Recorder r;
  EXPECT_TRUE(ServeOps(Ops(absl::OkStatus(), false), Get("/metrics"), r));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "x_total 1\n");
  EXPECT_EQ(r.Header("Content-Type"),
            "text/plain; version=0.0.4; charset=utf-8");

  EXPECT_TRUE(ServeOps(Ops(absl::OkStatus(), true), Get("/metrics"), r));
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.Header("WWW-Authenticate"), HasSubstr("Bearer"));
  EXPECT_THAT(r.body, HasSubstr("metrics_without_token"));

  HttpRequest with_token = Get("/metrics");
  with_token.headers.push_back({"authorization", "Bearer bad"});
  EXPECT_TRUE(ServeOps(Ops(absl::OkStatus(), true), with_token, r));
  EXPECT_EQ(r.status, 401);
  with_token.headers = {{"authorization", "Bearer good"}};
  EXPECT_TRUE(ServeOps(Ops(absl::OkStatus(), true), with_token, r));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "x_total 1\n");
}

TEST(OpsHttp, OtherPathsAreLeftAndOtherMethodsRefused) {
  Recorder r;
  EXPECT_FALSE(ServeOps(Ops(absl::OkStatus(), false), Get("/"), r));
  EXPECT_FALSE(ServeOps(Ops(absl::OkStatus(), false), Get("/metricsx"), r));
  EXPECT_EQ(r.status, 0);  // nothing sent
  EXPECT_TRUE(
      ServeOps(Ops(absl::OkStatus(), false), Get("/metrics", "POST"), r));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("Allow"), "GET, HEAD");
  EXPECT_TRUE(
      ServeOps(Ops(absl::OkStatus(), false), Get("/metrics", "HEAD"), r));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
}

}  // namespace
}  // namespace webnnm::server
