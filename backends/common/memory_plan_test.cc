// Placement of intermediates by liveness.
#include "backends/common/memory_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace webnnm::backends {
namespace {

bool Overlap(const ArenaPlan& plan, const std::vector<Lifetime>& items,
             size_t a, size_t b) {
  bool live =
      items[a].first <= items[b].last && items[b].first <= items[a].last;
  bool bytes = plan.offsets[a] < plan.offsets[b] + items[b].bytes &&
               plan.offsets[b] < plan.offsets[a] + items[a].bytes;
  return live && bytes;
}

TEST(MemoryPlan, AChainReusesTwoSlots) {
  // x1 -> x2 -> x3 -> x4: each lives from its step to the next.
  std::vector<Lifetime> items = {
      {1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 3}};
  ArenaPlan plan = PlanArena(items, 64);
  EXPECT_EQ(plan.size, 2 * 1024u);
  for (size_t a = 0; a < items.size(); ++a) {
    for (size_t b = a + 1; b < items.size(); ++b) {
      EXPECT_FALSE(Overlap(plan, items, a, b)) << a << " " << b;
    }
  }
}

TEST(MemoryPlan, LiveTogetherNeverShare) {
  std::vector<Lifetime> items = {
      {100, 0, 5}, {300, 1, 2}, {50, 2, 4}, {300, 3, 5}, {10, 0, 0}};
  ArenaPlan plan = PlanArena(items, 64);
  for (size_t a = 0; a < items.size(); ++a) {
    EXPECT_EQ(plan.offsets[a] % 64, 0u);
    for (size_t b = a + 1; b < items.size(); ++b) {
      EXPECT_FALSE(Overlap(plan, items, a, b)) << a << " " << b;
    }
  }
  // Peak live bytes (aligned) are 128 + 320 + 64 at step 2.
  EXPECT_LE(plan.size, 128u + 320 + 64 + 64);
}

TEST(MemoryPlan, Empty) {
  ArenaPlan plan = PlanArena({}, 64);
  EXPECT_EQ(plan.size, 0u);
}

}  // namespace
}  // namespace webnnm::backends
