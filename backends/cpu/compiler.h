// CpuExecutable's compiler (compile.cc): a graph's plan (steps and value
// lifetimes, fusion chains, element-wise groups, and the rewrites of
// compile_rewrites.cc), its memory (own buffers and one arena), and its
// kernels, in four stages. Private to the CPU backend.
#ifndef WEBNNM_BACKENDS_CPU_COMPILER_H_
#define WEBNNM_BACKENDS_CPU_COMPILER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/elementwise_groups.h"
#include "backends/cpu/executable.h"
#include "backends/cpu/fusion.h"
#include "backends/cpu/kernel.h"
#include "engine/ir/graph.h"

namespace webnnm::backends::cpu {

class CpuExecutable::Compiler {
 public:
  Compiler(const ir::Graph& graph, const CompileOptions& options,
           CpuExecutable& exe)
      : graph_(graph), options_(options), exe_(exe) {}

  absl::Status Plan();
  absl::Status AllocateMemory();
  absl::Status MakeKernels();
  absl::Status KeepCarriedOutputs();

 private:
  bool fusing() const { return options_.fusion && !options_.reference_kernels; }
  // The caller's memory for input `name` (CompileOptions::shared_inputs),
  // or nullptr.
  const SharedInput* SharedInputOf(const std::string& name) const {
    for (const SharedInput& s : options_.shared_inputs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
  void PlanChains();
  void PlanGroups();
  void PlanFoldedTransposes();
  void PlanMaskedPoolGradients();
  bool IsPlusZero(ir::ValueId v) const;
  bool ReadsFoldedIntoConv(ir::NodeId r, ir::ValueId v) const;
  bool MovesOnlyOnes(const ir::Node& node) const;
  void PlanAliasedReshapes();
  void PlanInPlaceCarries();
  // The kernel of one operation (with its post-op links when it anchors a
  // chain), appended.
  absl::Status AddKernel(ir::NodeId id);
  absl::StatusOr<std::unique_ptr<Kernel>> FuseChain(int chain,
                                                    const KernelIO& io,
                                                    KernelFactory factory,
                                                    std::string& name);
  absl::Status AddGroupKernel(const ElementwiseGroup& group);
  void Append(std::unique_ptr<Kernel> kernel, std::string name,
              const std::string& profile_line);

  const ir::Graph& graph_;
  const CompileOptions& options_;
  CpuExecutable& exe_;
  std::vector<ir::NodeId> order_;
  // Steps are the operation nodes in order; the step of each value's
  // producer and of its last reader decide its lifetime.
  std::vector<int> step_of_;
  std::vector<bool> read_by_output_;
  std::vector<int> last_read_, first_step_;
  std::vector<FusionChain> chains_;
  std::vector<int> chain_of_;  // anchors and links
  std::vector<bool> fused_;    // the anchor took its links
  std::vector<ElementwiseGroup> groups_;
  std::vector<int> group_of_;
  // A group member's result that an outside operation or an output reads.
  std::vector<bool> stored_;
  std::vector<std::byte*> address_;
  std::vector<size_t> sizes_;
  // By value id: the carried input whose buffer the value is written into
  // (kNoValue: none).
  std::vector<ir::ValueId> in_place_of_;
  // By value id: for the result of a transpose folded into the matmuls
  // that read it, the transpose's operand (kNoValue: none).
  std::vector<ir::ValueId> transposed_from_;
  // By value id: for the result of a reshape that is not run, the value
  // whose buffer it reads (itself never a reshape's; kNoValue: none).
  std::vector<ir::ValueId> reshaped_from_;
  // By value id: the nodes that read it, once per operand slot (graph
  // outputs included).
  std::vector<std::vector<ir::NodeId>> readers_;
  // By node id: run by another node's kernel (PlanMaskedPoolGradients).
  std::vector<bool> absorbed_;
  // By node id: for a where run as a masked max-pooling gradient, that
  // gradient's node (-1: none).
  std::vector<ir::NodeId> masked_pool_of_;
};

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_COMPILER_H_
