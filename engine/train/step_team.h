// StepTeam: a few threads that run one function together, call after call
// — the shares of each training step's batch when a run has several
// threads (step_runner.h). The caller is rank 0; ranks 1..size-1 are
// threads of the team's own, made once. Between calls they spin for a
// short while (the next call usually comes within tens of microseconds:
// waking a sleeping thread costs about as much) and then sleep on a futex
// (std::atomic::wait), so an idle team takes no CPU.
//
// Thread-safety: one thread calls Run() at a time; the team's threads end
// with it.
#ifndef WEBNNM_ENGINE_TRAIN_STEP_TEAM_H_
#define WEBNNM_ENGINE_TRAIN_STEP_TEAM_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace webnnm::train {

class StepTeam {
 public:
  explicit StepTeam(int size);
  ~StepTeam();
  StepTeam(const StepTeam&) = delete;
  StepTeam& operator=(const StepTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()) + 1; }

  // Runs work(rank) for every rank at once, rank 0 on the calling thread;
  // returns when every rank has returned. `work` must not throw.
  void Run(const std::function<void(int rank)>& work);

 private:
  void Serve(int rank);

  std::vector<std::thread> threads_;
  const std::function<void(int)>* work_ = nullptr;  // set before a call
  // A new call is a new generation; `pending_` ranks past 0 have not
  // finished it yet. `stopping_` ends the threads.
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_STEP_TEAM_H_
