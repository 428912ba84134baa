#include "engine/train/collective.h"

#include <algorithm>
#include <cstring>

#include "engine/base/strings.h"

namespace webnnm::train {

absl::Status Collective::Broadcast(std::span<double> data) {
  if (rank() != 0) std::fill(data.begin(), data.end(), 0.0);
  return AllReduceSum(data);
}

absl::StatusOr<bool> Collective::Any(bool yes) {
  double flag = yes ? 1.0 : 0.0;
  if (absl::Status s = AllReduceSum(std::span<double>(&flag, 1)); !s.ok()) {
    return s;
  }
  return flag > 0;
}

absl::Status Collective::Done() {
  double nothing = 0;
  return AllReduceSum(std::span<double>(&nothing, 1));
}

// Each call: every rank posts its buffer; the last to arrive sums them in
// rank order; each copies the sum out; the round ends when all have.
class ThreadCollective::Hub {
 public:
  explicit Hub(int size) : size_(size), posted_(size), sizes_(size) {}
  int size() const { return size_; }

  template <typename T>
  absl::Status Sum(int rank, std::span<T> data) {
    absl::MutexLock lock(&mutex_);
    // The previous round is copied out by everyone first.
    while (copied_ != 0) done_.Wait(&mutex_);
    posted_[rank] = data.data();
    sizes_[rank] = data.size() * sizeof(T);
    if (++arrived_ == size_) {
      for (int r = 0; r < size_; ++r) {
        if (sizes_[r] != sizes_[0]) {
          failed_ = absl::InternalError(
              StrCat("replicas summed different sizes (", sizes_[0], " and ",
                     sizes_[r], " bytes)"));
        }
      }
      if (failed_.ok()) {
        sum_.assign(sizes_[0], std::byte{0});
        T* out = reinterpret_cast<T*>(sum_.data());
        for (int r = 0; r < size_; ++r) {
          const T* in = static_cast<const T*>(posted_[r]);
          for (size_t i = 0; i < data.size(); ++i) out[i] += in[i];
        }
      }
      copied_ = size_;
      arrived_ = 0;
      ++round_;
      done_.SignalAll();
    } else {
      const uint64_t round = round_;
      while (round_ == round) done_.Wait(&mutex_);
    }
    absl::Status status = failed_;
    if (status.ok()) {
      std::memcpy(data.data(), sum_.data(), data.size() * sizeof(T));
    }
    if (--copied_ == 0) {
      failed_ = absl::OkStatus();
      done_.SignalAll();
    }
    return status;
  }

 private:
  const int size_;
  absl::Mutex mutex_;
  absl::CondVar done_;
  std::vector<const void*> posted_ ABSL_GUARDED_BY(mutex_);
  std::vector<size_t> sizes_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::byte> sum_ ABSL_GUARDED_BY(mutex_);
  int arrived_ ABSL_GUARDED_BY(mutex_) = 0;
  int copied_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t round_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Status failed_ ABSL_GUARDED_BY(mutex_);
};

std::shared_ptr<ThreadCollective::Hub> ThreadCollective::MakeHub(int size) {
  return std::make_shared<Hub>(size);
}

int ThreadCollective::size() const { return hub_->size(); }

absl::Status ThreadCollective::AllReduceSum(std::span<float> data) {
  return hub_->Sum(rank_, data);
}

absl::Status ThreadCollective::AllReduceSum(std::span<double> data) {
  return hub_->Sum(rank_, data);
}

}  // namespace webnnm::train
