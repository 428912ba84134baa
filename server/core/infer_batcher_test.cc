#include "server/core/infer_batcher.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
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

// An asynchronous call: its payload and call, freed by `finished` (as the
// server's calls are), which counts and records its status.
struct AsyncCall {
  Payload payload;
  InferBatcher::Call call;
};

InferBatcher::Call* NewAsync(int in, std::atomic<int>& finished,
                             std::vector<absl::Status>* statuses = nullptr,
                             absl::Mutex* mutex = nullptr) {
  auto* a = new AsyncCall{Payload{in}, {}};
  a->call.payload = &a->payload;
  a->call.finished = [a, &finished, statuses, mutex](const absl::Status& s) {
    std::unique_ptr<AsyncCall> owned(a);
    EXPECT_EQ(owned->payload.ran, 1);
    EXPECT_EQ(owned->payload.out, owned->payload.in * 10);
    if (statuses) {
      absl::MutexLock lock(mutex);
      statuses->push_back(s);
    }
    ++finished;
  };
  return &a->call;
}

// Runs each call once: out = in · 10.
absl::Status TimesTen(const std::vector<InferBatcher::Call*>& b) {
  for (auto* c : b) {
    auto* p = static_cast<Payload*>(c->payload);
    p->out = p->in * 10;
    ++p->ran;
  }
  return absl::OkStatus();
}

TEST(InferBatcher, ALoneAsynchronousCallRunsBeforeSubmitReturns) {
  InferBatcher batcher;
  std::atomic<int> finished{0};
  InferBatcher::Arrival arrival(batcher);
  batcher.SubmitAsync(arrival, *NewAsync(4, finished), absl::Seconds(10), 64,
                      TimesTen);
  EXPECT_EQ(finished.load(), 1);  // no wait of 10 s: nothing on its way
}

TEST(InferBatcher, AsynchronousCallsQueueBehindALeaderAndReturnAtOnce) {
  // While a batch runs, asynchronous calls return from SubmitAsync without
  // running; the leader then runs them (as one batch) and finishes each.
  InferBatcher batcher;
  absl::Notification running, release;
  std::vector<size_t> sizes;
  std::thread::id leader;
  std::atomic<int> finished{0};
  auto run = [&](const std::vector<InferBatcher::Call*>& b) {
    if (sizes.empty()) {
      leader = std::this_thread::get_id();
      running.Notify();
      release.WaitForNotification();
    }
    EXPECT_EQ(std::this_thread::get_id(), leader);
    sizes.push_back(b.size());
    return TimesTen(b);
  };
  std::thread first([&] {
    InferBatcher::Arrival arrival(batcher);
    batcher.SubmitAsync(arrival, *NewAsync(1, finished), absl::ZeroDuration(),
                        64, run);
  });
  running.WaitForNotification();
  for (int i = 2; i <= 4; ++i) {
    InferBatcher::Arrival arrival(batcher);
    batcher.SubmitAsync(arrival, *NewAsync(i, finished), absl::ZeroDuration(),
                        64, run);
    EXPECT_EQ(finished.load(), 0);  // returned at once, not run
  }
  release.Notify();
  first.join();
  EXPECT_EQ(finished.load(), 4);
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 3}));
}

TEST(InferBatcher, SynchronousAndAsynchronousCallsAllRunOnce) {
  // Threads mixing both kinds on one model: every asynchronous call is
  // finished by the time all threads returned (none left in the queue),
  // every synchronous one returned its own result, batches were shared.
  InferBatcher batcher;
  constexpr int kThreads = 6, kCalls = 60;
  std::atomic<int> finished{0}, batches{0};
  std::vector<absl::Status> statuses;
  absl::Mutex mutex;
  auto run = [&](const std::vector<InferBatcher::Call*>& b) {
    ++batches;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return TimesTen(b);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kCalls; ++k) {
        InferBatcher::Arrival arrival(batcher);
        if ((t + k) % 3 == 0) {
          Payload p{t * 1000 + k};
          InferBatcher::Call call{.rows = 1, .payload = &p};
          EXPECT_TRUE(
              batcher.Submit(arrival, call, absl::Microseconds(100), 8, run)
                  .ok());
          EXPECT_EQ(p.ran, 1);
          EXPECT_EQ(p.out, p.in * 10);
        } else {
          batcher.SubmitAsync(
              arrival, *NewAsync(t * 1000 + k, finished, &statuses, &mutex),
              absl::Microseconds(100), 8, run);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(finished.load(), kThreads * kCalls * 2 / 3);
  for (const absl::Status& s : statuses) EXPECT_TRUE(s.ok());
  EXPECT_LT(batches.load(), kThreads * kCalls);
}

TEST(InferBatcher, ASynchronousLeaderHandsOverAndNoCallIsLeftBehind) {
  // One call a batch (max_rows 1). A synchronous leader's batch is held
  // while an asynchronous call, a synchronous one and another asynchronous
  // one queue; once its own call ran, the leader hands over to the queued
  // synchronous caller, which runs the rest: every call runs once.
  InferBatcher batcher;
  absl::Notification running, release;
  std::atomic<int> finished{0}, batches{0};
  auto run = [&](const std::vector<InferBatcher::Call*>& b) {
    if (batches++ == 0) {
      running.Notify();
      release.WaitForNotification();
    }
    EXPECT_EQ(b.size(), 1u);
    return TimesTen(b);
  };
  Payload mine{1}, other{2};
  std::thread leader([&] {
    InferBatcher::Call call{.payload = &mine};
    InferBatcher::Arrival arrival(batcher);
    EXPECT_TRUE(
        batcher.Submit(arrival, call, absl::ZeroDuration(), 1, run).ok());
  });
  running.WaitForNotification();
  {
    InferBatcher::Arrival arrival(batcher);
    batcher.SubmitAsync(arrival, *NewAsync(3, finished), absl::ZeroDuration(),
                        1, run);
  }
  std::atomic<bool> queued{false};
  std::thread second([&] {
    InferBatcher::Call call{.payload = &other};
    InferBatcher::Arrival arrival(batcher);
    queued = true;
    EXPECT_TRUE(
        batcher.Submit(arrival, call, absl::ZeroDuration(), 1, run).ok());
  });
  while (!queued.load()) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // queued
  {
    InferBatcher::Arrival arrival(batcher);
    batcher.SubmitAsync(arrival, *NewAsync(4, finished), absl::ZeroDuration(),
                        1, run);
  }
  release.Notify();
  leader.join();
  second.join();
  EXPECT_EQ(mine.out, 10);
  EXPECT_EQ(other.out, 20);
  EXPECT_EQ(finished.load(), 2);  // both asynchronous calls, none left
  EXPECT_EQ(batches.load(), 4);
}

}  // namespace
}  // namespace webnnm::server
