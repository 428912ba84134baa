// The extent of one axis of a shape and of the dimensions before and after
// it: what the kernels that work along an axis (argMin/argMax,
// cumulativeSum) iterate by.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_AXIS_SPLIT_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_AXIS_SPLIT_H_

#include <cstdint>
#include <vector>

namespace webnnm::backends::cpu {

struct AxisSplit {
  int64_t outer = 1, length = 1, inner = 1;
};

inline AxisSplit SplitAt(const std::vector<int64_t>& shape, int axis) {
  AxisSplit s;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < axis) s.outer *= shape[d];
    if (d == axis) s.length = shape[d];
    if (d > axis) s.inner *= shape[d];
  }
  return s;
}

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_AXIS_SPLIT_H_
