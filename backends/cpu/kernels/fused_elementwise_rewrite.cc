// Rewrites of the fused element-wise program (fused_elementwise_program.h)
// that take instructions, and so passes over the block's rows, out of it
// without changing a stored bit: a `where` whose condition is one element
// known for the run, and a multiplication joined to the addition or
// subtraction that alone reads it. An optimizer's update (eight
// operations, two of them such wheres, three such pairs) becomes three
// instructions.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "backends/cpu/kernels/fused_elementwise_program.h"

namespace webnnm::backends::cpu {

int OperandCount(Code code) {
  switch (code) {  // every code: a new one must say how many it reads
    case Code::kLogicalNot:
    case Code::kAbs:
    case Code::kNeg:
    case Code::kSign:
    case Code::kRelu:
    case Code::kSqrt:
    case Code::kReciprocal:
    case Code::kSoftsign:
    case Code::kFloor:
    case Code::kCeil:
    case Code::kCopy:
    case Code::kClamp:
    case Code::kLeakyRelu:
    case Code::kIsNaN:
    case Code::kIsInfinite:
    case Code::kExp:
    case Code::kSigmoid:
      return 1;
    case Code::kAdd:
    case Code::kSub:
    case Code::kMul:
    case Code::kDiv:
    case Code::kMax:
    case Code::kMin:
    case Code::kEqual:
    case Code::kNotEqual:
    case Code::kGreater:
    case Code::kGreaterOrEqual:
    case Code::kLesser:
    case Code::kLesserOrEqual:
    case Code::kLogicalAnd:
    case Code::kLogicalOr:
    case Code::kLogicalXor:
      return 2;
    case Code::kWhere:
    case Code::kMulAdd:
    case Code::kAddMul:
    case Code::kMulSub:
    case Code::kSubMul:
      return 3;
  }
  return 3;  // not reached
}

namespace {

// The registers `in` reads (a, b, c as its code has them).
template <typename F>
void ForEachOperand(Instruction& in, F&& f) {
  int* slots[] = {&in.a, &in.b, &in.c};
  for (int k = 0; k < OperandCount(in.code); ++k) f(*slots[k]);
}

// How many times `in` reads register r; Reads: the whole program.
int ReadsOf(Instruction in, int r) {
  int reads = 0;
  ForEachOperand(in, [&](int& x) { reads += x == r ? 1 : 0; });
  return reads;
}

int Reads(const std::vector<Instruction>& program, int r) {
  int reads = 0;
  for (const Instruction& in : program) reads += ReadsOf(in, r);
  return reads;
}

bool Overlap(const RegisterFacts& x, const RegisterFacts& y) {
  return x.begin != nullptr && y.begin != nullptr && x.begin < y.end &&
         y.begin < x.end;
}

// Drops the where at `at`, which chooses register `chosen`: the instruction
// that computed `chosen` writes the where's register instead, and every
// read of `chosen` reads it. False (nothing changed) where that is not
// safe.
bool RenameInto(std::vector<Instruction>& program, size_t at, int chosen,
                const std::vector<RegisterFacts>& facts) {
  const int into = program[at].dst;
  if (!facts[chosen].scratch) return false;
  size_t producer = at;
  for (size_t i = 0; i < at; ++i) {
    if (program[i].dst == chosen) producer = i;
  }
  if (producer == at) return false;
  // Its register is now written at `producer`: no tensor read between
  // then and the where may share its memory.
  for (size_t i = producer + 1; i < at; ++i) {
    bool clash = false;
    ForEachOperand(program[i],
                   [&](int& x) { clash |= Overlap(facts[x], facts[into]); });
    if (clash) return false;
  }
  program[producer].dst = into;
  for (Instruction& in : program) {
    ForEachOperand(in, [&](int& x) {
      if (x == chosen) x = into;
    });
  }
  program.erase(program.begin() + static_cast<std::ptrdiff_t>(at));
  return true;
}

}  // namespace

std::vector<Instruction> SpecializeWheres(
    std::vector<Instruction> program, const std::vector<RegisterFacts>& facts,
    const std::vector<int>& condition) {
  for (size_t i = 0; i < program.size();) {
    Instruction& in = program[i];
    if (in.code != Code::kWhere || condition[in.a] < 0) {
      ++i;
      continue;
    }
    const int chosen = condition[in.a] != 0 ? in.b : in.c;
    if (RenameInto(program, i, chosen, facts)) continue;  // i: the next one
    in = Instruction{Code::kCopy, in.dst, chosen};
    ++i;
  }
  return program;
}

std::vector<Instruction> JoinMultiplyThenAdd(
    std::vector<Instruction> program, const std::vector<RegisterFacts>& facts) {
  for (size_t i = 0; i < program.size();) {
    const Instruction mul = program[i];
    const int product = mul.dst;
    if (mul.code != Code::kMul || !facts[product].scratch ||
        Reads(program, product) != 1) {
      ++i;
      continue;
    }
    size_t j = i + 1;  // the one reader
    while (j < program.size() && ReadsOf(program[j], product) == 0) ++j;
    const Instruction next = j < program.size() ? program[j] : mul;
    // The joined instruction reads the product's operands at j: no result
    // written in between may share a tensor's memory with them.
    bool clash = false;
    for (size_t k = i + 1; k < j; ++k) {
      const RegisterFacts& written = facts[program[k].dst];
      clash |= Overlap(written, facts[mul.a]) || Overlap(written, facts[mul.b]);
    }
    // An addition or subtraction reading the product once, as a or b.
    if (j == program.size() || clash ||
        (next.code != Code::kAdd && next.code != Code::kSub) ||
        (next.a == product) == (next.b == product)) {
      ++i;
      continue;
    }
    const bool add = next.code == Code::kAdd;
    Instruction joined{Code::kMulAdd, next.dst, mul.a, mul.b};
    if (next.a == product) {  // a·b ± c
      joined.code = add ? Code::kMulAdd : Code::kMulSub;
      joined.c = next.b;
    } else {  // c ± a·b
      joined.code = add ? Code::kAddMul : Code::kSubMul;
      joined.c = next.a;
    }
    program[j] = joined;
    program.erase(program.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return program;
}

}  // namespace webnnm::backends::cpu
