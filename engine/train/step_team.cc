#include "engine/train/step_team.h"

#include <chrono>

namespace webnnm::train {
namespace {

// How long a waiting thread spins before it sleeps: about what waking a
// sleeping one costs on a busy VM, and less than most steps' update.
constexpr auto kSpin = std::chrono::microseconds(250);

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Waits until `value` is no longer `old`: spins for kSpin, then sleeps.
template <typename T>
T WaitWhile(const std::atomic<T>& value, T old) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    const T now = value.load(std::memory_order_acquire);
    if (now != old) return now;
    Relax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) break;
  }
  for (;;) {
    value.wait(old, std::memory_order_acquire);
    const T now = value.load(std::memory_order_acquire);
    if (now != old) return now;
  }
}

}  // namespace

StepTeam::StepTeam(int size) {
  for (int rank = 1; rank < size; ++rank) {
    threads_.emplace_back([this, rank] { Serve(rank); });
  }
}

StepTeam::~StepTeam() {
  stopping_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void StepTeam::Run(const std::function<void(int)>& work) {
  if (threads_.empty()) {
    work(0);
    return;
  }
  work_ = &work;
  pending_.store(static_cast<int>(threads_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  work(0);
  for (int left = pending_.load(std::memory_order_acquire); left != 0;) {
    left = WaitWhile(pending_, left);
  }
}

void StepTeam::Serve(int rank) {
  uint64_t seen = 0;
  for (;;) {
    seen = WaitWhile(generation_, seen);
    if (stopping_.load(std::memory_order_acquire)) return;
    (*work_)(rank);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      pending_.notify_one();
    }
  }
}

}  // namespace webnnm::train
