#include "server/core/infer_batcher.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"

namespace webnnm::server {
namespace {

// Each call's payload: its own number in, the number times 10 out.
struct Payload {
  int in = 0;
  int out = -1;
  int ran = 0;  // times the call was run
};

TEST(InferBatcher, ALoneCallRunsAtOnceAlone) {
  InferBatcher batcher;
  std::vector<size_t> sizes;
  for (int i = 0; i < 3; ++i) {
    Payload p{i};
    InferBatcher::Call call{.rows = 1, .payload = &p};
    InferBatcher::Arrival arrival(batcher);
    absl::Status s =
        batcher.Submit(arrival, call, absl::Seconds(10), 64,
                       [&](const std::vector<InferBatcher::Call*>& b) {
                         sizes.push_back(b.size());
                         for (auto* c : b)
                           static_cast<Payload*>(c->payload)->out = 10 * i;
                         return absl::OkStatus();
                       });
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(p.out, 10 * i);
  }
  // Never a wait of 10 s: no other call was on its way.
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 1, 1}));
}

TEST(InferBatcher, ConcurrentCallsShareBatchesAndEachRunsOnce) {
  InferBatcher batcher;
  constexpr int kThreads = 8, kCalls = 40;
  std::atomic<int> batches{0}, shared{0}, most_rows{0};
  std::vector<std::vector<Payload>> payloads(kThreads,
                                             std::vector<Payload>(kCalls));
  auto run = [&](const std::vector<InferBatcher::Call*>& b) {
    ++batches;
    if (b.size() > 1) ++shared;
    int rows = 0;
    for (auto* c : b) {
      auto* p = static_cast<Payload*>(c->payload);
      p->out = p->in * 10;
      ++p->ran;
      rows += static_cast<int>(c->rows);
      EXPECT_EQ(c->key, b[0]->key);  // one sequence length a batch
    }
    int seen = most_rows.load();
    while (rows > seen && !most_rows.compare_exchange_weak(seen, rows)) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    return absl::OkStatus();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kCalls; ++k) {
        Payload& p = payloads[t][k];
        p.in = t * 1000 + k;
        InferBatcher::Call call{.rows = 1 + k % 3, .key = t % 2, .payload = &p};
        InferBatcher::Arrival arrival(batcher);
        EXPECT_TRUE(
            batcher.Submit(arrival, call, absl::Milliseconds(1), 5, run).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& per : payloads) {
    for (const Payload& p : per) {
      EXPECT_EQ(p.ran, 1);
      EXPECT_EQ(p.out, p.in * 10);
    }
  }
  EXPECT_GT(shared.load(), 0);  // eight threads on one model did share
  EXPECT_LT(batches.load(), kThreads * kCalls);
  EXPECT_LE(most_rows.load(), 5);  // max_rows (a call of 3 rows fits alone)
}

TEST(InferBatcher, ALeaderWithAWindowWaitsForACallOnItsWay) {
  InferBatcher batcher;
  Payload a{1}, b{2};
  std::vector<size_t> sizes;
  auto run = [&](const std::vector<InferBatcher::Call*>& batch) {
    sizes.push_back(batch.size());
    return absl::OkStatus();
  };
  // b's request is being read (its Arrival made) when a is submitted: a
  // waits (up to 10 s) until b is queued too, and they run as one batch.
  auto b_arrival = std::make_unique<InferBatcher::Arrival>(batcher);
  std::thread first([&] {
    InferBatcher::Call call{.payload = &a};
    InferBatcher::Arrival arrival(batcher);
    EXPECT_TRUE(batcher.Submit(arrival, call, absl::Seconds(10), 64, run).ok());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  InferBatcher::Call call{.payload = &b};
  EXPECT_TRUE(
      batcher.Submit(*b_arrival, call, absl::Seconds(10), 64, run).ok());
  first.join();
  EXPECT_EQ(sizes, (std::vector<size_t>{2}));
  // A call given up on its way (a bad request) is not waited for.
  sizes.clear();
  auto gone = std::make_unique<InferBatcher::Arrival>(batcher);
  std::thread lone([&] {
    InferBatcher::Call c{.payload = &a};
    InferBatcher::Arrival arrival(batcher);
    EXPECT_TRUE(batcher.Submit(arrival, c, absl::Seconds(10), 64, run).ok());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  gone.reset();
  lone.join();
  EXPECT_EQ(sizes, (std::vector<size_t>{1}));
}

TEST(InferBatcher, ABatchsErrorIsEveryMembersError) {
  InferBatcher batcher;
  absl::Notification first_running, release;
  std::vector<absl::Status> results(3);
  std::atomic<int> calls{0};
  auto run = [&](const std::vector<InferBatcher::Call*>& b) -> absl::Status {
    if (calls++ == 0) {  // hold the first batch while the others queue
      first_running.Notify();
      release.WaitForNotification();
      return absl::OkStatus();
    }
    for (auto* c : b) static_cast<Payload*>(c->payload)->ran += 1;
    return absl::InvalidArgumentError("bad batch");
  };
  Payload p[3];
  std::thread first([&] {
    InferBatcher::Call c{.payload = &p[0]};
    InferBatcher::Arrival arrival(batcher);
    results[0] = batcher.Submit(arrival, c, absl::ZeroDuration(), 64, run);
  });
  first_running.WaitForNotification();
  std::vector<std::thread> others;
  std::atomic<int> queued{0};
  for (int i = 1; i < 3; ++i) {
    others.emplace_back([&, i] {
      InferBatcher::Call c{.payload = &p[i]};
      InferBatcher::Arrival arrival(batcher);
      ++queued;
      results[i] = batcher.Submit(arrival, c, absl::ZeroDuration(), 64, run);
    });
  }
  while (queued.load() < 2) std::this_thread::yield();
  // Usually both are queued behind the running batch by now (one batch of
  // two); either way, each gets the error of the batch it ran in.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  release.Notify();
  first.join();
  for (std::thread& t : others) t.join();
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(results[2].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p[1].ran + p[2].ran, 2);
}

}  // namespace
}  // namespace webnnm::server
