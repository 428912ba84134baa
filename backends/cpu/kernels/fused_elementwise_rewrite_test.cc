// The fused element-wise program's rewrites (fused_elementwise_program.h):
// which instructions they take out and which they must leave. That the
// rewritten programs compute the same bits is elementwise_groups_test.cc's.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "backends/cpu/kernels/fused_elementwise_program.h"

namespace webnnm::backends::cpu {
namespace {

Instruction Op(Code code, int dst, int a, int b = 0, int c = 0) {
  return Instruction{code, dst, a, b, c};
}

// Registers: 0 w, 1 g, 2 m (tensors read in place), 3 decay, 4 momentum,
// 5 step, 6 apply (one element each), 7.. results.
struct Update {
  std::vector<RegisterFacts> facts = std::vector<RegisterFacts>(16);
  std::vector<std::byte> memory = std::vector<std::byte>(4 * 100);
  std::vector<Instruction> program;

  Update() {
    for (int r = 0; r < 3; ++r) Tensor(r, r);
    for (int r = 7; r < 16; ++r) facts[r].scratch = true;
    // sgdm: gd = g + w·decay; m' = m·momentum + gd; w' = w − m'·step;
    // then where(apply, w', w) → 13 and where(apply, m', m) → 14, both
    // stored (tensors 3 and 4 of memory).
    program = {Op(Code::kMul, 7, 0, 3),        Op(Code::kAdd, 8, 1, 7),
               Op(Code::kMul, 9, 2, 4),        Op(Code::kAdd, 10, 9, 8),
               Op(Code::kMul, 11, 10, 5),      Op(Code::kSub, 12, 0, 11),
               Op(Code::kWhere, 13, 6, 12, 0), Op(Code::kWhere, 14, 6, 10, 2)};
    Tensor(13, 3);
    Tensor(14, 4);
  }
  // Register r walks the slot-th tensor of 20 floats.
  void Tensor(int r, int slot) {
    facts[r].scratch = false;
    facts[r].begin = memory.data() + slot * 80;
    facts[r].end = facts[r].begin + 80;
  }
  std::vector<int> Condition(int apply) const {
    std::vector<int> c(facts.size(), -1);
    c[6] = apply;
    return c;
  }
};

void ExpectInstruction(const Instruction& in, Code code, int dst, int a, int b,
                       int c = -1) {
  EXPECT_EQ(in.code, code);
  EXPECT_EQ(in.dst, dst);
  EXPECT_EQ(in.a, a);
  EXPECT_EQ(in.b, b);
  if (c >= 0) EXPECT_EQ(in.c, c);
}

TEST(FusedElementwiseRewrite, AnUpdateAppliedBecomesThreeInstructions) {
  Update u;
  std::vector<Instruction> p = JoinMultiplyThenAdd(
      SpecializeWheres(u.program, u.facts, u.Condition(1)), u.facts);
  ASSERT_EQ(p.size(), 3u);
  ExpectInstruction(p[0], Code::kAddMul, 8, 0, 3, 1);    // g + w·decay
  ExpectInstruction(p[1], Code::kMulAdd, 14, 2, 4, 8);   // m·momentum + gd
  ExpectInstruction(p[2], Code::kSubMul, 13, 14, 5, 0);  // w − m'·step
}

TEST(FusedElementwiseRewrite, AnUpdateNotAppliedCopiesTheOldValues) {
  Update u;
  std::vector<Instruction> p =
      SpecializeWheres(u.program, u.facts, u.Condition(0));
  ASSERT_EQ(p.size(), 8u);  // w and m are tensors, not results: copies
  ExpectInstruction(p[6], Code::kCopy, 13, 0, 0);
  ExpectInstruction(p[7], Code::kCopy, 14, 2, 0);
}

TEST(FusedElementwiseRewrite, AnUnknownConditionKeepsTheWhere) {
  Update u;
  std::vector<Instruction> p =
      SpecializeWheres(u.program, u.facts, std::vector<int>(16, -1));
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[6].code, Code::kWhere);
  EXPECT_EQ(p[7].code, Code::kWhere);
}

TEST(FusedElementwiseRewrite, AResultOverlappingATensorReadBeforeTheWhere) {
  // The stored momentum shares memory with w (read by the sub between the
  // momentum's add and its where): writing it at the add would change the
  // w the sub reads, so that where becomes a copy.
  Update u;
  u.Tensor(14, 0);
  std::vector<Instruction> p =
      SpecializeWheres(u.program, u.facts, u.Condition(1));
  ASSERT_EQ(p.size(), 7u);
  ExpectInstruction(p[5], Code::kSub, 13, 0, 11);  // renamed: nothing between
  ExpectInstruction(p[6], Code::kCopy, 14, 10, 0);
}

TEST(FusedElementwiseRewrite, AProductReadTwiceOrStoredStaysAlone) {
  std::vector<RegisterFacts> facts(8);
  for (int r = 3; r < 8; ++r) facts[r].scratch = true;
  // 3 = 0·1 read by the add and by the sub after it: kept.
  std::vector<Instruction> twice = {Op(Code::kMul, 3, 0, 1),
                                    Op(Code::kAdd, 4, 3, 2),
                                    Op(Code::kSub, 5, 4, 3)};
  EXPECT_EQ(JoinMultiplyThenAdd(twice, facts).size(), 3u);
  // The product stored for a reader outside: kept.
  std::vector<Instruction> stored = {Op(Code::kMul, 3, 0, 1),
                                     Op(Code::kSub, 4, 2, 3)};
  facts[3].scratch = false;
  EXPECT_EQ(JoinMultiplyThenAdd(stored, facts).size(), 2u);
  // The product as both operands of the add: kept.
  facts[3].scratch = true;
  std::vector<Instruction> square = {Op(Code::kMul, 3, 0, 1),
                                     Op(Code::kAdd, 4, 3, 3)};
  EXPECT_EQ(JoinMultiplyThenAdd(square, facts).size(), 2u);
  // Apart: joined where the sum is, unless a result written in between
  // shares memory with an operand of the product (0, a tensor).
  std::vector<Instruction> apart = {
      Op(Code::kMul, 3, 0, 1), Op(Code::kNeg, 5, 2), Op(Code::kAdd, 4, 3, 5)};
  std::vector<Instruction> p = JoinMultiplyThenAdd(apart, facts);
  ASSERT_EQ(p.size(), 2u);
  ExpectInstruction(p[0], Code::kNeg, 5, 2, 0);
  ExpectInstruction(p[1], Code::kMulAdd, 4, 0, 1, 5);
  std::vector<std::byte> memory(64);
  facts[0].begin = facts[5].begin = memory.data();
  facts[0].end = facts[5].end = memory.data() + 64;
  facts[5].scratch = false;
  EXPECT_EQ(JoinMultiplyThenAdd(apart, facts).size(), 3u);
  facts[0] = RegisterFacts{};
  facts[5] = RegisterFacts{.scratch = true};
  // Each side of a difference.
  std::vector<Instruction> left = {Op(Code::kMul, 3, 0, 1),
                                   Op(Code::kSub, 4, 3, 2)};
  p = JoinMultiplyThenAdd(left, facts);
  ASSERT_EQ(p.size(), 1u);
  ExpectInstruction(p[0], Code::kMulSub, 4, 0, 1, 2);
}

TEST(FusedElementwiseRewrite, OperandCounts) {
  EXPECT_EQ(OperandCount(Code::kNeg), 1);
  EXPECT_EQ(OperandCount(Code::kAdd), 2);
  EXPECT_EQ(OperandCount(Code::kWhere), 3);
  EXPECT_EQ(OperandCount(Code::kSubMul), 3);
}

}  // namespace
}  // namespace webnnm::backends::cpu
