#include "backends/common/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace webnnm::backends {

ArenaPlan PlanArena(const std::vector<Lifetime>& items, size_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(items.size(), 0);
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return items[a].bytes > items[b].bytes;
  });
  auto round_up = [&](size_t n) {
    return (n + alignment - 1) / alignment * alignment;
  };
  std::vector<size_t> placed;
  for (size_t item : order) {
    const Lifetime& life = items[item];
    size_t size = round_up(std::max<size_t>(life.bytes, 1));
    // The placed items alive at the same time, by offset.
    std::vector<size_t> conflicts;
    for (size_t other : placed) {
      const Lifetime& o = items[other];
      if (o.first <= life.last && life.first <= o.last)
        conflicts.push_back(other);
    }
    std::sort(conflicts.begin(), conflicts.end(), [&](size_t a, size_t b) {
      return plan.offsets[a] < plan.offsets[b];
    });
    size_t offset = 0;
    for (size_t other : conflicts) {
      size_t begin = plan.offsets[other];
      size_t end = begin + round_up(std::max<size_t>(items[other].bytes, 1));
      if (offset + size <= begin) break;  // fits in the gap before `other`
      offset = std::max(offset, end);
    }
    plan.offsets[item] = offset;
    plan.size = std::max(plan.size, offset + size);
    placed.push_back(item);
  }
  return plan;
}

}  // namespace webnnm::backends
