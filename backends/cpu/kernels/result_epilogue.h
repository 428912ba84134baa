// Element-wise operations a small matmul applies to its result before the
// kernel returns (fusion.h: the links of a matmul too small for oneDNN), so
// that a tiny layer's bias and relu cost no kernels of their own: +, −, ·
// and ÷ with another float32 tensor of the result's shape, of its last
// dimension (a bias) or of one element, the result on either side; and
// relu. Each computes what the element-wise kernels compute (the same
// IEEE operation on the same operands in the same order; relu x > 0 ? x :
// 0), so fused or not, the results are the same bits.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_RESULT_EPILOGUE_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_RESULT_EPILOGUE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/cpu/kernel.h"
#include "engine/ir/graph.h"

namespace webnnm::backends::cpu {

// Whether `link` (reading the chain's value `v`) is an operation the
// epilogue runs.
bool ResultEpilogueTakes(const ir::Graph& graph, const ir::Node& link,
                         ir::ValueId v);

class ResultEpilogue {
 public:
  // The epilogue of `fused` over a result of type `y` (every link's own
  // result type), or nothing when a link is not one it runs.
  static std::optional<ResultEpilogue> Make(const std::vector<FusedOp>& fused,
                                            const ir::TensorType& y);

  // Applies the operations, in order, to y[0, count) in place.
  void Apply(float* y, int64_t count) const;

 private:
  enum class Kind { kAdd, kSub, kMul, kDiv, kRelu };
  enum class Other { kSame, kRow, kOne };  // the other operand's extent
  struct Step {
    Kind kind = Kind::kRelu;
    bool result_left = true;  // the result is the left operand
    Other extent = Other::kOne;
    const float* other = nullptr;
  };
  std::vector<Step> steps_;
  int64_t row_ = 1;  // the result's last dimension
};

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_RESULT_EPILOGUE_H_
