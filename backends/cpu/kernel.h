// Kernels: one per operation node of a compiled graph.
//
// A KernelFactory makes the kernel of one node once, at compile time, from
// the node's attributes, the types of its operands and results, and the
// buffers they will live in (fixed for the executable's lifetime). Run()
// then computes the results from the operands; it does no allocation and
// fails only on conditions that depend on data. Every kernel family lives in
// its own file under kernels/; kernel_table.cc maps operations to factories.
#ifndef WEBNNM_BACKENDS_CPU_KERNEL_H_
#define WEBNNM_BACKENDS_CPU_KERNEL_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"

namespace webnnm::backends::cpu {

class CpuContext;

// An operation fused into the kernel of the node before it (fusion.h): its
// node and, for a binary operation, the other operand (float32).
struct FusedOp {
  const ir::Node* node = nullptr;
  const ir::TensorType* other_type = nullptr;
  const std::byte* other = nullptr;
};

// What a factory sees of one node.
struct KernelIO {
  const ir::Node& node;
  std::vector<const ir::TensorType*> in_types;  // nullptr: absent operand
  std::vector<const std::byte*> in;             // nullptr: absent operand
  std::vector<const ir::TensorType*> out_types;
  std::vector<std::byte*> out;
  CpuContext& context;
  // Operations to apply to the result before it is stored: `out` is then
  // the last one's result. Given to the factories of fusion anchors
  // (fusion.h: matmul, a conv2d of one input channel), which return nullptr
  // when they cannot apply them (the executable then makes separate
  // kernels), and to maxPool2dGradient's as the where of relu's gradient it
  // applies (compile_rewrites.cc, PlanMaskedPoolGradients).
  std::vector<FusedOp> fused = {};
  // By operand: read transposed — a folded transpose (compile_rewrites.cc): for
  // matmul its buffer holds the operand with its last two dimensions
  // swapped, for conv2d (the direct loops of a large filter alone) with its
  // first two. Other factories are given no such operands. Empty: none.
  std::vector<bool> transposed = {};

  const ir::Attrs& attrs() const { return node.attrs; }
  bool has(size_t slot) const { return slot < in.size() && in[slot]; }
  bool is_transposed(size_t slot) const {
    return slot < transposed.size() && transposed[slot];
  }
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual absl::Status Run() = 0;
  // What computes the operation: "C++", or the oneDNN implementation.
  virtual std::string implementation() const { return "C++"; }
};

using KernelFactory =
    absl::StatusOr<std::unique_ptr<Kernel>> (*)(const KernelIO& io);

// The factory for `op`, or nullptr when the CPU backend has none.
KernelFactory FindKernel(ir::OpKind op);

// A kernel that runs a function object (for kernels without state).
template <typename F>
class FunctionKernel : public Kernel {
 public:
  explicit FunctionKernel(F f) : f_(std::move(f)) {}
  absl::Status Run() override {
    f_();
    return absl::OkStatus();
  }

 private:
  F f_;
};

template <typename F>
std::unique_ptr<Kernel> MakeFunctionKernel(F f) {
  return std::make_unique<FunctionKernel<F>>(std::move(f));
}

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNEL_H_
