#include "engine/collectives/gloo_collective.h"

#include <gloo/allreduce_ring.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <signal.h>

#include <algorithm>
#include <exception>
#include <type_traits>

#include "engine/base/strings.h"

namespace webnnm::dist {
absl::StatusOr<std::unique_ptr<GlooCollective>> GlooCollective::Connect(
    const GlooOptions& options) {
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return absl::InvalidArgumentError(StrCat("replica ", options.rank, " of ",
                                             options.size, " does not exist"));
  }
  // A peer's death is an error to report, never this process's end.
  ::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<GlooCollective> c(new GlooCollective());
  c->rank_ = options.rank;
  c->size_ = options.size;
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.address;
    std::shared_ptr<gloo::transport::Device> device =
        gloo::transport::tcp::CreateDevice(attr);
    std::shared_ptr<gloo::rendezvous::Store> base = options.store;
    if (!base) {
      base = std::make_shared<gloo::rendezvous::FileStore>(options.folder);
    }
    gloo::rendezvous::PrefixStore store(options.prefix, *base);
    auto context =
        std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
    context->setTimeout(options.timeout);
    context->connectFullMesh(store, device);
    c->context_ = std::move(context);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        StrCat("replica ", options.rank, " of ", options.size,
               " could not reach the others within ",
               options.timeout.count() / 1000.0, " s: ", e.what()));
  }
  return c;
}

GlooCollective::~GlooCollective() = default;

template <typename T>
absl::Status GlooCollective::Sum(std::span<T> data) {
  if (size_ == 1 || data.empty()) return absl::OkStatus();
  const auto start = std::chrono::steady_clock::now();
  constexpr bool kDouble = std::is_same_v<T, double>;
  try {
    Cached* cached = nullptr;
    for (Cached& c : cache_) {
      if (c.bytes == data.size_bytes() && c.is_double == kDouble) cached = &c;
    }
    if (cached == nullptr) {
      if (cache_.size() >= 8) cache_.erase(cache_.begin());
      Cached c{data.size_bytes(), kDouble,
               std::vector<double>((data.size_bytes() + 7) / 8), nullptr};
      std::vector<T*> pointers = {reinterpret_cast<T*>(c.buffer.data())};
      c.algorithm = std::make_unique<gloo::AllreduceRing<T>>(
          context_, pointers, static_cast<int>(data.size()));
      cache_.push_back(std::move(c));
      cached = &cache_.back();
    }
    T* buffer = reinterpret_cast<T*>(cached->buffer.data());
    std::copy(data.begin(), data.end(), buffer);
    cached->algorithm->run();
    std::copy(buffer, buffer + data.size(), data.begin());
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        StrCat("replica ", rank_, " of ", size_,
               ": the replicas no longer answer (one stopped or was "
               "killed?): ",
               e.what()));
  }
  seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return absl::OkStatus();
}

absl::Status GlooCollective::AllReduceSum(std::span<float> data) {
  return Sum(data);
}

absl::Status GlooCollective::AllReduceSum(std::span<double> data) {
  return Sum(data);
}

}  // namespace webnnm::dist
