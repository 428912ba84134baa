#include "engine/train/buckets.h"

#include <algorithm>

#include "engine/base/philox.h"

namespace webnnm::train {

int64_t BucketLength(int64_t length, int64_t steps) {
  const int64_t width = std::max<int64_t>(1, (steps + 3) / 4);
  const int64_t bucket = (std::max<int64_t>(length, 1) + width - 1) / width;
  return std::min(steps, bucket * width);
}

std::vector<int64_t> BucketedOrder(const std::vector<int64_t>& order,
                                   const std::vector<int64_t>& lengths,
                                   int64_t steps, int64_t batch, uint64_t seed,
                                   int epoch) {
  std::vector<int64_t> grouped = order;
  std::stable_sort(grouped.begin(), grouped.end(), [&](int64_t a, int64_t b) {
    return BucketLength(lengths[a], steps) < BucketLength(lengths[b], steps);
  });
  if (batch < 1) return grouped;
  const int64_t full = static_cast<int64_t>(grouped.size()) / batch;
  std::vector<int64_t> batches(full);
  for (int64_t i = 0; i < full; ++i) batches[i] = i;
  for (int64_t i = full - 1; i > 0; --i) {
    PhiloxBlock bits = Philox4x32({static_cast<uint32_t>(i),
                                   static_cast<uint32_t>(epoch), 0xb0c7, 0},
                                  seed);
    std::swap(batches[i],
              batches[bits[0] % static_cast<uint32_t>(i + 1)]);
  }
  std::vector<int64_t> result;
  result.reserve(grouped.size());
  for (int64_t b : batches) {
    result.insert(result.end(), grouped.begin() + b * batch,
                  grouped.begin() + (b + 1) * batch);
  }
  result.insert(result.end(), grouped.begin() + full * batch, grouped.end());
  return result;
}

int64_t BatchLength(const std::vector<int64_t>& order, int64_t begin,
                    int64_t batch, const std::vector<int64_t>& lengths,
                    int64_t steps) {
  int64_t longest = 1;
  const int64_t end =
      std::min<int64_t>(begin + batch, static_cast<int64_t>(order.size()));
  for (int64_t i = begin; i < end; ++i) {
    longest = std::max(longest, lengths[order[i]]);
  }
  return BucketLength(longest, steps);
}

}  // namespace webnnm::train
