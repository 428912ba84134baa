// The replicas of a data-parallel training run, as the trainer sees them:
// `size` processes (or threads) that each take a share of every global
// batch and sum what they computed. An implementation over Gloo's TCP
// allreduce lives in engine/collectives/ (gloo_collective.h); ThreadCollective,
// below, joins threads of one process (for tests).
//
// Every replica must make the same calls in the same order (the trainer
// does: it calls them at the same points of the same loop); a call fails
// (Unavailable, naming the replica when it can) when a replica is gone or
// does not answer within the implementation's timeout, and the run then
// fails on every replica. A run that went well ends with Done() on every
// replica before any closes its connections.
#ifndef WEBNNM_ENGINE_TRAIN_COLLECTIVE_H_
#define WEBNNM_ENGINE_TRAIN_COLLECTIVE_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace webnnm::train {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sums `data` element by element over the replicas, in place; every
  // replica ends with the same bits.
  virtual absl::Status AllReduceSum(std::span<float> data) = 0;
  virtual absl::Status AllReduceSum(std::span<double> data) = 0;
  // Replica 0's `data` on every replica (a sum of zeros elsewhere).
  absl::Status Broadcast(std::span<double> data);
  // Whether any replica says `yes`.
  absl::StatusOr<bool> Any(bool yes);
  // The end of a run that went well, each replica's last call: returns
  // once every replica has returned from its other calls (an allreduce of
  // nothing: its sum needs every replica's part). A replica that closed
  // its connections as soon as its own last sum returned could cut short
  // another's, still reading its last message: Gloo fails a receive whose
  // peer hung up even when the data had come ("Connection closed by
  // peer"). Done's own error is that same cut (or a replica gone after
  // its last sum): every replica has all its results by then, so it is
  // no error of the run, and the caller may drop it.
  absl::Status Done();
};

// `size` threads of one process, each holding its own ThreadCollective of
// one shared Hub. Sums in rank order (deterministic).
class ThreadCollective final : public Collective {
 public:
  class Hub;
  static std::shared_ptr<Hub> MakeHub(int size);
  ThreadCollective(std::shared_ptr<Hub> hub, int rank)
      : hub_(std::move(hub)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override;
  absl::Status AllReduceSum(std::span<float> data) override;
  absl::Status AllReduceSum(std::span<double> data) override;

 private:
  std::shared_ptr<Hub> hub_;
  int rank_;
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_COLLECTIVE_H_
