// `train --local --replicas N`: a data-parallel run of N processes on this
// machine (engine/train/trainer.h, engine/collectives/gloo_collective.h). The
// process the user started is replica 0 — it reports, saves and tests as
// any train --local does — and starts replicas 1..N-1 as copies of itself
// (the same command with --replica-rank R and the rendezvous folder),
// quiet, ignoring Ctrl-C (replica 0's stop is everyone's), ending when it
// ends. They meet through Gloo's file store in a temporary folder and sum
// over TCP on 127.0.0.1, each with the run's `threads`.
#ifndef WEBNNM_CLIENT_REPLICAS_H_
#define WEBNNM_CLIENT_REPLICAS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/collectives/gloo_collective.h"

namespace webnnm::client {

// The hidden flags a replica is started with, and the visible timeout.
struct ReplicaFlags {
  int rank = 0;              // --replica-rank (0: the user's process)
  std::string rendezvous;    // --rendezvous FOLDER (replicas > 0)
  int timeout_seconds = 30;  // --replica-timeout
  // --replica-save PREFIX: each replica writes its final state to
  // PREFIX.RANK.wnms (tests compare their bits).
  std::string save_prefix;
};

// Replica 0's view of the others: started at construction, waited for (or
// killed) by Finish() and at destruction.
class Replicas {
 public:
  // Starts replicas 1..size-1 of this command (`argv` as main got it).
  static absl::StatusOr<std::unique_ptr<Replicas>> Start(
      int size, const std::vector<std::string>& argv,
      const ReplicaFlags& flags);
  ~Replicas();

  const std::string& rendezvous() const { return folder_; }
  // Waits for every replica to exit: OK when all exited 0, else which did
  // not (exit code or signal) — killing the rest when `kill` is set.
  absl::Status Finish(bool kill);

 private:
  Replicas() = default;
  std::string folder_;
  std::vector<pid_t> children_;
};

// The collective of replica `flags.rank` of `size`: connects to the others
// through `folder` within the timeout.
absl::StatusOr<std::unique_ptr<dist::GlooCollective>> ConnectReplica(
    int size, const ReplicaFlags& flags, const std::string& folder);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_REPLICAS_H_
