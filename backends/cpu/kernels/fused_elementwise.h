// The fused element-wise kernel: the members of one element-wise group
// (elementwise_groups.h) run as a small program over blocks of up to 512
// elements, each value a row of float "registers", so that a group of
// dozens of operations on a few numbers costs one kernel call, and one on a
// large parameter makes one pass over memory. It runs on the calling thread:
// on this 2-vCPU machine, splitting a 100,000-element optimizer update
// between two threads measured no faster.
//
// The operations, each computed with the same expression as its own kernel
// (unary.cc, binary.cc, cast.cc) so that results are the same bit for bit,
// fused or not:
//   float32 → float32: add sub mul div max min abs neg sign relu sqrt
//     reciprocal softsign floor ceil identity clamp leakyRelu, and where
//     (a uint8 condition);
//   float32 → uint8: equal notEqual greater greaterOrEqual lesser
//     lesserOrEqual isNaN isInfinite;
//   uint8 → uint8: logicalAnd logicalOr logicalXor logicalNot identity;
//   uint8 → float32: cast;
//   float32 → float32 and uint8 → uint8: expand.
// Operands smaller than the group's shape broadcast to it: one element is
// read once a run, others through an index made when the kernel is.
// uint8 values live in the registers as their float value (0 or 1 when an
// operation made them) and are stored back as bytes.
// The program is rewritten once per value of its one-element `where`
// conditions (an optimizer's "apply this step" flag), and the run picks
// its program by them: a decided where is dropped or becomes a copy, and a
// product joined to the one sum or difference that reads it, so that an
// sgdm update of eight operations runs as three passes over its rows
// (fused_elementwise_program.h); stored results keep their bits.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/kernel.h"
#include "engine/ir/graph.h"

namespace webnnm::backends::cpu {

// Whether the fused kernel computes `node` (its operation and types; shapes
// are the group planner's business).
bool FusedElementwiseSupports(const ir::Graph& graph, const ir::Node& node);

// What the fused kernel of one group sees.
struct FusedElementwiseIO {
  const ir::Graph& graph;
  const std::vector<ir::NodeId>& members;  // in order, same result shape
  // The buffer of every value, by value id: those the members read from
  // outside the group, and their results that are `stored`.
  const std::vector<std::byte*>& address;
  // By value id: a member's result that something outside the group reads.
  const std::vector<bool>& stored;
};

// The kernel, or an error when a member is not supported, does not have the
// group's shape, or has an operand that does not broadcast to it.
absl::StatusOr<std::unique_ptr<Kernel>> MakeFusedElementwiseKernel(
    const FusedElementwiseIO& io);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_H_
