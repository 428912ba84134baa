// Tensors past one binding (maxStorageBufferRange), for operations whose
// results' rows along dimension 0 each depend only on the same rows of
// some operands (the batch of a convolution or a pooling, the rows of a
// softmax, a normalization or a reduction that keeps dimension 0, the rows
// of a matrix product's first operand): the operation is planned once per
// chunk of rows, each chunk's tensors bound as aligned sub-ranges, the
// other operands whole.
#ifndef WEBNNM_BACKENDS_VULKAN_ROW_SPLIT_H_
#define WEBNNM_BACKENDS_VULKAN_ROW_SPLIT_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/vulkan/kernels/kernel.h"

namespace webnnm::backends::vulkan {

// Which operands of `io`'s operation split with its results' rows, or
// nullopt when the operation cannot be split that way.
std::optional<std::vector<bool>> RowAligned(const OpIO& io);

// Plans `io` with `planner` in chunks of rows so that every binding fits
// io.max_range; ResourceExhausted when even one row does not, or when an
// operand that does not split is itself past the limit.
absl::StatusOr<std::vector<Dispatch>> PlanByRows(
    const OpIO& io, Planner planner, const std::vector<bool>& split);

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_ROW_SPLIT_H_
