// The fused element-wise kernel's program (fused_elementwise.h): its
// instructions, and the two ways of running one over a block of registers
// — a plain loop, and AVX-512 vectors of 16 with a mask for the tail (the
// same expression lane by lane, so the same bits; a few numbers cost one
// vector step instead of a scalar loop each), each code its own function
// so that an instruction costs one call. Internal to the kernel.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_PROGRAM_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

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
  kExp,      // std::exp, the same bits (exp_floats.h)
  kSigmoid,  // 1 / (1 + std::exp(-a))
  kWhere,
  // A multiplication and the addition or subtraction that alone reads its
  // product, as one instruction (rewrites below): each rounds as the two
  // did (no fused multiply-add), the operands in their order.
  kMulAdd,  // d = a·b + c
  kAddMul,  // d = c + a·b
  kMulSub,  // d = a·b − c
  kSubMul,  // d = c − a·b
};

// How many of a, b, c an instruction of `code` reads.
int OperandCount(Code code);

struct Instruction {
  Code code;
  int dst = 0, a = 0, b = 0, c = 0;  // registers
  float p = 0, q = 0;                // clamp bounds; leakyRelu's alpha
  // Which of dst (1), a (2), b (4), c (8) are rows of the kernel's own,
  // with room for a whole vector past the block's end (the others are
  // tensors, read and written up to their last element only).
  uint8_t rows = 0;
  // What runs it (VectorInstruction, else ExecuteScalar).
  void (*run)(const Instruction&, float* const*, int64_t) = nullptr;
};

// Runs an instruction over elements [0, n) of the registers `at`:
// d = op(a, b, c).
using InstructionFunction = void (*)(const Instruction& in, float* const* at,
                                     int64_t n);
// The plain loops, every code (a switch).
void ExecuteScalar(const Instruction& in, float* const* at, int64_t n);
// The AVX-512 function of `code`, chosen once per instruction when the
// kernel is made (no dispatch per run); nullptr where the build has none.
InstructionFunction VectorInstruction(Code code);

// What the rewrites of a program need to know of one register.
struct RegisterFacts {
  // A row of the kernel's own that only the program reads (a member's
  // result that nothing outside the group reads): its instruction may
  // write it elsewhere, or not at all.
  bool scratch = false;
  // The tensor the register walks in place, as bytes [begin, end) (null:
  // none); a result written earlier than before must not overlap a tensor
  // read in between.
  const std::byte* begin = nullptr;
  const std::byte* end = nullptr;
};

// The program for runs in which the one-element condition register r of
// every `where` holds `condition[r]` (0: false, 1: true, -1: not known,
// the where kept): a where of known condition is dropped and the
// instruction that computed its chosen value writes the where's register
// instead (every read renamed), where that value is a scratch row and no
// tensor read in between overlaps the where's; otherwise it becomes a
// copy. The same bits in every register the kernel stores.
std::vector<Instruction> SpecializeWheres(
    std::vector<Instruction> program, const std::vector<RegisterFacts>& facts,
    const std::vector<int>& condition);

// The program with each multiplication whose product is a scratch row
// read only by one later instruction, an addition or subtraction, joined
// into it (kMulAdd, kAddMul, kMulSub, kSubMul) where no result written in
// between shares memory with the product's operands: one pass over the
// rows instead of two, the same bits.
std::vector<Instruction> JoinMultiplyThenAdd(
    std::vector<Instruction> program, const std::vector<RegisterFacts>& facts);

// Moving values into and out of a register's row (which has room for a
// whole vector past n), with vector stores where the build has AVX-512 so
// that the program's vector loads of the row forward from them: n copies
// of v; from[index[i]] (`from` holding from_count floats); bytes widened
// to floats; floats (0..255) stored
// back as bytes (up to n only).
void FillRow(float* row, float v, int64_t n);
void GatherRow(float* row, const float* from, int64_t from_count,
               const int32_t* index, int64_t n);
void WidenBytes(float* row, const uint8_t* from, int64_t n);
void NarrowBytes(uint8_t* to, const float* row, int64_t n);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_FUSED_ELEMENTWISE_PROGRAM_H_
