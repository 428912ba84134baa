// The replicas of a data-parallel run over Gloo (PyTorch's collective
// library, Debian's libgloo-dev): TCP between the replicas, a full mesh of
// connections made through a rendezvous store, ring allreduce.
//
// Connect() joins `size` replicas: each binds the address given (replicas
// bind only there — Debian's Gloo has no TLS, so it must be a trusted
// network: docs/deployment.md), publishes its address under `prefix` in the
// store and connects to every other. Every wait (the rendezvous, each
// allreduce) gives up after `timeout`: a replica that died makes the others
// fail within it, never hang. Failures are Unavailable, saying which rank
// failed and why (Gloo's message). Connect() makes the process ignore
// SIGPIPE: Gloo writes to its sockets without MSG_NOSIGNAL, and a write to
// a replica that died must fail the call (EPIPE), not kill this one.
//
// Destroying it closes its connections at once, and Gloo then fails a
// peer's receive still in progress, though its data came: a run ends with
// Done() (collective.h) on every replica first, as Train() does.
//
// Thread-safety: one thread uses a GlooCollective at a time.
#ifndef WEBNNM_ENGINE_COLLECTIVES_GLOO_COLLECTIVE_H_
#define WEBNNM_ENGINE_COLLECTIVES_GLOO_COLLECTIVE_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/train/collective.h"

namespace gloo {
class Algorithm;
class Context;
namespace rendezvous {
class Store;
}
}  // namespace gloo

namespace webnnm::dist {

struct GlooOptions {
  int rank = 0, size = 1;
  std::string address = "127.0.0.1";  // the interface this replica binds
  std::chrono::milliseconds timeout{30000};
  // The rendezvous: a folder shared by the replicas (Gloo's FileStore), or
  // a store given (the cluster's database).
  std::string folder;
  std::shared_ptr<gloo::rendezvous::Store> store;
  std::string prefix;  // keys under it (one run, one attempt)
};

class GlooCollective final : public train::Collective {
 public:
  static absl::StatusOr<std::unique_ptr<GlooCollective>> Connect(
      const GlooOptions& options);
  ~GlooCollective() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  absl::Status AllReduceSum(std::span<float> data) override;
  absl::Status AllReduceSum(std::span<double> data) override;
  // Seconds spent in allreduce calls so far (the communication's cost).
  double seconds() const { return seconds_; }

 private:
  GlooCollective() = default;
  template <typename T>
  absl::Status Sum(std::span<T> data);

  int rank_ = 0, size_ = 1;
  std::shared_ptr<gloo::Context> context_;
  // Ring allreduces kept by size and type, each over a buffer of its own:
  // a training step sums as much every time, and making one costs more
  // than a small allreduce. Making one takes the context's next slot, so
  // the replicas must make them in the same order: the cache is keyed by
  // what every replica sums alike (never by an address), and evicts the
  // oldest of a few, alike everywhere.
  struct Cached {
    size_t bytes;
    bool is_double;
    std::vector<double> buffer;  // the algorithm's (8-byte aligned)
    std::unique_ptr<gloo::Algorithm> algorithm;
  };
  std::vector<Cached> cache_;
  double seconds_ = 0;
};

}  // namespace webnnm::dist

#endif  // WEBNNM_ENGINE_COLLECTIVES_GLOO_COLLECTIVE_H_
