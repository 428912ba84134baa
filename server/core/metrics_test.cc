#include "server/core/metrics.h"

#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace webnnm::server::metrics {
namespace {

using ::testing::HasSubstr;

TEST(Metrics, CountersByLabel) {
  Registry r;
  Family<Counter>& calls = r.AddCounter("x_calls_total", "Calls.", {"code"});
  calls.With({"OK"}).Add();
  calls.With({"OK"}).Add(2);
  calls.With({"NOT_FOUND"}).Add();
  Counter& plain = r.AddCounter("x_total", "Plain.").With({});
  plain.Add(5);
  EXPECT_EQ(r.Expose(),
            "# HELP x_calls_total Calls.\n"
            "# TYPE x_calls_total counter\n"
            "x_calls_total{code=\"NOT_FOUND\"} 1\n"
            "x_calls_total{code=\"OK\"} 3\n"
            "# HELP x_total Plain.\n"
            "# TYPE x_total counter\n"
            "x_total 5\n");
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInf) {
  Registry r;
  Histogram& h = r.AddHistogram("x_seconds", "Latency.", {0.1, 1, 10}).With({});
  for (double v : {0.05, 0.1, 0.5, 2.0, 50.0}) h.Observe(v);
  const std::string text = r.Expose();
  EXPECT_THAT(text, HasSubstr("# TYPE x_seconds histogram\n"));
  // A value equal to a bound counts in that bucket (le: less or equal).
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{le=\"0.1\"} 2\n"
                              "x_seconds_bucket{le=\"1\"} 3\n"
                              "x_seconds_bucket{le=\"10\"} 4\n"
                              "x_seconds_bucket{le=\"+Inf\"} 5\n"
                              "x_seconds_sum 52.65\n"
                              "x_seconds_count 5\n"));
}

TEST(Metrics, LabelValuesAndHelpAreEscaped) {
  Registry r;
  r.AddCounter("x_total", "A \\ help\nline.", {"path"})
      .With({"a\"b\\c\nd"})
      .Add();
  EXPECT_EQ(r.Expose(),
            "# HELP x_total A \\\\ help\\nline.\n"
            "# TYPE x_total counter\n"
            "x_total{path=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(Metrics, CollectorsRunAtEachExposition) {
  Registry r;
  int calls = 0;
  r.AddCollector([&calls](Exposition& out) {
    ++calls;
    out.Family("x_jobs", "Jobs.", Type::kGauge);
    out.Sample("x_jobs", {{"state", "QUEUED"}}, calls);
  });
  EXPECT_THAT(r.Expose(), HasSubstr("x_jobs{state=\"QUEUED\"} 1\n"));
  EXPECT_THAT(r.Expose(), HasSubstr("x_jobs{state=\"QUEUED\"} 2\n"));
}

TEST(Metrics, ValuesFormatAsPrometheusReadsThem) {
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(0.25), "0.25");
  EXPECT_EQ(FormatValue(1e-5), "1e-05");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
  EXPECT_TRUE(ValidName("webnnm_rpc_calls_total"));
  EXPECT_TRUE(ValidName("a:b_1"));
  EXPECT_FALSE(ValidName("1abc"));
  EXPECT_FALSE(ValidName("a-b"));
  EXPECT_FALSE(ValidName(""));
}

TEST(Metrics, ConcurrentAddsAreAllCounted) {
  Registry r;
  Counter& c = r.AddCounter("x_total", "X.").With({});
  Histogram& h = r.AddHistogram("x_seconds", "X.", {1}).With({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.Add();
        h.Observe(0.5);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(h.count(), 40000u);
  EXPECT_EQ(h.counts()[0], 40000u);
}

TEST(Metrics, ExponentialBuckets) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
}

}  // namespace
}  // namespace webnnm::server::metrics
