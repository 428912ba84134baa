// Placing intermediate tensors in one arena by liveness.
//
// Each item lives from the step that produces it to the last step that
// reads it; two items may share bytes when their lifetimes do not overlap.
// Items are placed largest first at the lowest offset that fits between the
// items already placed whose lifetimes overlap theirs (the greedy-by-size
// strategy), which stays close to the peak of live bytes.
#ifndef WEBNNM_BACKENDS_COMMON_MEMORY_PLAN_H_
#define WEBNNM_BACKENDS_COMMON_MEMORY_PLAN_H_

#include <cstddef>
#include <vector>

namespace webnnm::backends {

struct Lifetime {
  size_t bytes = 0;
  int first = 0;  // producing step
  int last = 0;   // last reading step (>= first)
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per item, multiples of `alignment`
  size_t size = 0;              // bytes the arena needs
};

ArenaPlan PlanArena(const std::vector<Lifetime>& items, size_t alignment);

}  // namespace webnnm::backends

#endif  // WEBNNM_BACKENDS_COMMON_MEMORY_PLAN_H_
