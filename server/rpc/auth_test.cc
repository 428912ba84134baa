#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/config.h"
#include "server/core/job.h"
#include "server/rpc/auth.h"
#include "engine/train/hyperparameters_proto.h"
#include "server/convert/convert.h"

namespace webnnm::server {
namespace {

TEST(Tokens, ParsesLinesCommentsAndAdmins) {
  absl::StatusOr<Tokens> t = Tokens::Parse(
      "# tokens\n\n  s3cret   ann\nt0ken bob admin # the boss\n", "tokens");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->size(), 2u);
  absl::StatusOr<Principal> ann = t->AuthenticateHeader("Bearer s3cret");
  ASSERT_TRUE(ann.ok());
  EXPECT_EQ(ann->name, "ann");
  EXPECT_FALSE(ann->admin);
  EXPECT_EQ(ann->Filter(), "ann");
  absl::StatusOr<Principal> bob = t->AuthenticateHeader("Bearer t0ken");
  ASSERT_TRUE(bob.ok());
  EXPECT_TRUE(bob->admin);
  EXPECT_EQ(bob->Filter(), "");
  EXPECT_EQ(t->AuthenticateHeader("Bearer wrong").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(t->AuthenticateHeader("").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(t->AuthenticateHeader("s3cret").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(t->AuthenticateHeader("Bearer s3cre").status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(Tokens, RejectsMalformedLinesWithTheirNumber) {
  absl::StatusOr<Tokens> t = Tokens::Parse("a b\nc d root\n", "tok");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              ::testing::HasSubstr("tok:2:"));
  EXPECT_FALSE(Tokens::Parse("lonely\n", "tok").ok());
  EXPECT_FALSE(Tokens::Parse("a b\na c\n", "tok").ok());
}

TEST(Tokens, WithoutTokensEveryoneIsTheLocalAdmin) {
  Tokens none;
  absl::StatusOr<Principal> p = none.AuthenticateHeader("");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->admin);
}

TEST(Config, LoopbackAddresses) {
  EXPECT_TRUE(IsLoopback("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopback("localhost:0"));
  EXPECT_TRUE(IsLoopback("[::1]:80"));
  EXPECT_FALSE(IsLoopback("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopback("[::]:50051"));
  EXPECT_FALSE(IsLoopback("10.0.0.1:1"));
  EXPECT_TRUE(IsLoopback("127.1.2.3:9"));
  // A name that starts like a loopback address is not one.
  EXPECT_FALSE(IsLoopback("127.example.invalid:0"));
  EXPECT_FALSE(IsLoopback("127.0.0.1.evil:0"));
  EXPECT_FALSE(IsLoopback("127.0.0.256:0"));
  // Nor is an address without a port.
  EXPECT_FALSE(IsLoopback("127.0.0.1"));
}

TEST(Config, ListenAddressesParseStrictly) {
  absl::StatusOr<ListenAddress> a = ParseListenAddress("127.0.0.1:50051");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 50051);
  a = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 0);
  for (const char* bad : {"127.0.0.1", "127.0.0.1:abc", "127.0.0.1:", ":80",
                          "127.0.0.1:65536", "127.0.0.1:-1", "::1:80",
                          "[::1:80", "[]:80", "127.0.0.1:123456"}) {
    absl::StatusOr<ListenAddress> r = ParseListenAddress(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_THAT(std::string(r.status().message()),
                ::testing::HasSubstr(std::string("'") + bad + "'"));
  }
}

TEST(Hyperparameters, DefaultsAndChecks) {
  v1::Hyperparameters h;
  absl::StatusOr<train::Hyperparameters> r = ResolveJobHyperparameters(train::ValuesFromProto(h), 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->epochs, 0);  // auto: the expert system's
  // auto: the expert system's recipe for the model.
  EXPECT_EQ(r->optimizer, train::OptimizerKind::kAuto);
  EXPECT_EQ(r->threads, 2);
  h.set_threads(8);
  h.set_optimizer("sgdm");
  h.set_lr(0.05);
  r = ResolveJobHyperparameters(train::ValuesFromProto(h), 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->threads, 2);
  EXPECT_EQ(r->optimizer, train::OptimizerKind::kSgdm);
  EXPECT_EQ(*r->lr, 0.05);
  h.set_optimizer("adamw");
  r = ResolveJobHyperparameters(train::ValuesFromProto(h), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->optimizer, train::OptimizerKind::kAdamW);
  h.set_optimizer("adagrad");
  r = ResolveJobHyperparameters(train::ValuesFromProto(h), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("optimizer"));
  h.clear_optimizer();
  h.set_epochs(0);
  EXPECT_FALSE(ResolveJobHyperparameters(train::ValuesFromProto(h), 1).ok());
}

}  // namespace
}  // namespace webnnm::server
