#include "server/core/infer_batcher.h"

#include <algorithm>

namespace webnnm::server {

int64_t InferBatcher::QueuedRows() const {
  int64_t rows = 0;
  for (const Call* c : queue_) {
    if (c->key == queue_.front()->key) rows += c->rows;
  }
  return rows;
}

std::vector<InferBatcher::Call*> InferBatcher::TakeBatch(int64_t max_rows) {
  std::vector<Call*> batch;
  const int64_t key = queue_.front()->key;
  int64_t rows = 0;
  for (auto it = queue_.begin(); it != queue_.end();) {
    Call* c = *it;
    if (c->key != key || (!batch.empty() && rows + c->rows > max_rows)) {
      ++it;
      continue;
    }
    rows += c->rows;
    batch.push_back(c);
    it = queue_.erase(it);
  }
  return batch;
}

InferBatcher::Arrival::Arrival(InferBatcher& batcher) : batcher_(batcher) {
  absl::MutexLock lock(&batcher_.mutex_);
  ++batcher_.arriving_;
}

InferBatcher::Arrival::~Arrival() {
  if (queued_) return;
  absl::MutexLock lock(&batcher_.mutex_);
  --batcher_.arriving_;
  batcher_.arrived_.Signal();  // one fewer to wait for
}

void InferBatcher::Queue(Arrival& arrival, Call& call) {
  queue_.push_back(&call);
  if (!arrival.queued_) {
    arrival.queued_ = true;
    --arriving_;
  }
  arrived_.Signal();  // a waiting leader looks again
}

void InferBatcher::Lead(const Call* mine, absl::Duration window,
                        int64_t max_rows, const RunBatch& run) {
  leading_ = true;
  while (!queue_.empty()) {
    // A queued synchronous call's caller waits and will lead next.
    if (mine && mine->done &&
        std::any_of(queue_.begin(), queue_.end(),
                    [](const Call* c) { return !c->finished; })) {
      break;
    }
    if (window > absl::ZeroDuration()) {
      const absl::Time deadline = absl::Now() + window;
      while (arriving_ > 0 && QueuedRows() < max_rows &&
             !arrived_.WaitWithDeadline(&mutex_, deadline)) {
      }
    }
    std::vector<Call*> batch = TakeBatch(max_rows);
    mutex_.Unlock();
    const absl::Status status = run(batch);
    // Asynchronous calls are finished here, unlocked (each may free its
    // call); synchronous ones below, under the lock their callers wait on.
    std::vector<Call*> waiting;
    for (Call* c : batch) {
      if (c->finished) {
        std::function<void(const absl::Status&)> finished =
            std::move(c->finished);
        finished(status);
      } else {
        waiting.push_back(c);
      }
    }
    mutex_.Lock();
    for (Call* c : waiting) {
      c->status = status;
      c->done = true;
    }
    finished_.SignalAll();
  }
  leading_ = false;
  finished_.SignalAll();  // a waiting caller may lead now
}

absl::Status InferBatcher::Submit(Arrival& arrival, Call& call,
                                  absl::Duration window, int64_t max_rows,
                                  const RunBatch& run) {
  absl::MutexLock lock(&mutex_);
  Queue(arrival, call);
  while (!call.done) {
    if (leading_) {
      finished_.Wait(&mutex_);
      continue;
    }
    Lead(&call, window, max_rows, run);
  }
  return call.status;
}

void InferBatcher::SubmitAsync(Arrival& arrival, Call& call,
                               absl::Duration window, int64_t max_rows,
                               const RunBatch& run) {
  if (!call.finished) {  // an asynchronous call, always (nothing to call)
    call.finished = [](const absl::Status&) {};
  }
  absl::MutexLock lock(&mutex_);
  Queue(arrival, call);
  if (!leading_) Lead(nullptr, window, max_rows, run);
}

}  // namespace webnnm::server
