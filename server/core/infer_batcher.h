// Dynamic batching of concurrent inference calls on one served model
// (Triton's idea): calls that arrive while the model is busy, or within a
// short window of a call that found company, run as one batch — one pass
// of the model over all their rows instead of one pass each.
//
// The first caller to find no batch forming becomes the leader. With a
// window of 0 it runs at once with the calls queued so far (those that
// arrived while the last batch ran). With a window > 0 it first waits, at
// most `window`, while other calls are on their way (an Arrival made, not
// yet queued) and fewer than `max_rows` rows are queued: a lone caller
// never waits. It then takes the queued calls that share its key (the
// sequence length) up to `max_rows` rows (at least one call), runs them
// with `run`, and wakes their callers; calls queued meanwhile form the
// next batch. Every call is run exactly once; a batch's error is every
// member's error.
//
// A call submitted asynchronously (SubmitAsync: gRPC's callback API, whose
// handlers must not wait for one another) returns at once when a leader is
// running; its `finished` is called, on the leader's thread, once its batch
// ran. A leader keeps running batches while calls are queued, handing over
// only to the waiting caller of a queued synchronous call, so that no
// asynchronous call is left behind; a synchronous call is finished when
// Submit returns, whoever ran it.
#ifndef WEBNNM_SERVER_CORE_INFER_BATCHER_H_
#define WEBNNM_SERVER_CORE_INFER_BATCHER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace webnnm::server {

class InferBatcher {
 public:
  // One call: filled by the caller, except `status` and `done`.
  struct Call {
    int64_t rows = 1;
    int64_t key = 0;          // calls run together only with equal keys
    void* payload = nullptr;  // the caller's request and result
    absl::Status status;
    bool done = false;
    // SubmitAsync's: called with the batch's status once the call ran (the
    // call is not touched after; it may free the call).
    std::function<void(const absl::Status&)> finished = nullptr;
  };
  // Runs one batch (in queue order); its status becomes each call's.
  using RunBatch = std::function<absl::Status(const std::vector<Call*>&)>;

  // A call on its way, from the moment its request is read until it is
  // queued (or given up): a leader with a window waits for such calls.
  class Arrival {
   public:
    explicit Arrival(InferBatcher& batcher);
    ~Arrival();
    Arrival(const Arrival&) = delete;
    Arrival& operator=(const Arrival&) = delete;

   private:
    friend class InferBatcher;
    InferBatcher& batcher_;
    bool queued_ = false;
  };

  // Queues `call` (its `arrival` ends) and returns once it ran, on this
  // thread or another — and, when this thread led, once no queued
  // asynchronous call is left without a leader (it runs them too unless a
  // queued synchronous call's caller can take over).
  absl::Status Submit(Arrival& arrival, Call& call, absl::Duration window,
                      int64_t max_rows, const RunBatch& run)
      ABSL_LOCKS_EXCLUDED(mutex_);

  // Queues `call` (its `arrival` ends; `call.finished` set) and returns: at
  // once when another thread leads (it runs the call), else after running
  // batches until none is left to run (this call among them). `call` must
  // live until `finished` is called; `run` is this caller's while it
  // leads (until SubmitAsync returns).
  void SubmitAsync(Arrival& arrival, Call& call, absl::Duration window,
                   int64_t max_rows, const RunBatch& run)
      ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  // Queues `call`, ending its arrival.
  void Queue(Arrival& arrival, Call& call)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Leads: runs batches while calls are queued — a synchronous leader
  // (`mine`) until its call is done and a queued synchronous call's caller
  // can take over, or nothing is left.
  void Lead(const Call* mine, absl::Duration window, int64_t max_rows,
            const RunBatch& run) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The queued calls sharing the front's key, up to `max_rows` rows (at
  // least the front), removed from the queue.
  std::vector<Call*> TakeBatch(int64_t max_rows)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  int64_t QueuedRows() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  absl::CondVar arrived_;   // a call was queued: for a waiting leader
  absl::CondVar finished_;  // a batch ran: for its callers, and a new leader
  std::deque<Call*> queue_ ABSL_GUARDED_BY(mutex_);
  bool leading_ ABSL_GUARDED_BY(mutex_) = false;
  int arriving_ ABSL_GUARDED_BY(mutex_) = 0;  // Arrivals not yet queued
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_INFER_BATCHER_H_
