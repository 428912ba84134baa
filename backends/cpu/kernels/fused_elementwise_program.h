// The fused element-wise kernel's program (fused_elementwise.h): its
// instructions, and the two ways of running one over a block of registers
// — a plain loop, and AVX-512 vectors of 16 with a mask for the tail (the
// same expression lane by lane, so the same bits; a few numbers cost one
// vector step instead of a scalar loop each). Internal to the kernel.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_PROGRAM_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_PROGRAM_H_

#include <cstdint>

namespace webnnm::backends::cpu {

enum class Code : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kEqual,
  kNotEqual,
  kGreater,
  kGreaterOrEqual,
  kLesser,
  kLesserOrEqual,
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
  kLogicalNot,
  kAbs,
  kNeg,
  kSign,
  kRelu,
  kSqrt,
  kReciprocal,
  kSoftsign,
  kFloor,
  kCeil,
  kCopy,
  kClamp,
  kLeakyRelu,
  kIsNaN,
  kIsInfinite,
  kWhere,
};

struct Instruction {
  Code code;
  int dst = 0, a = 0, b = 0, c = 0;  // registers
  float p = 0, q = 0;                // clamp bounds; leakyRelu's alpha
  // Which of dst (1), a (2), b (4), c (8) are rows of the kernel's own,
  // with room for a whole vector past the block's end (the others are
  // tensors, read and written up to their last element only).
  uint8_t rows = 0;
};

// Runs `in` over elements [0, n) of the registers `at`: d = op(a, b, c).
void ExecuteScalar(const Instruction& in, float* const* at, int64_t n);
// The same with AVX-512; false (nothing done) where the build has none.
bool ExecuteVector(const Instruction& in, float* const* at, int64_t n);

inline void Execute(const Instruction& in, float* const* at, int64_t n) {
  if (!ExecuteVector(in, at, n)) ExecuteScalar(in, at, n);
}

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_PROGRAM_H_
