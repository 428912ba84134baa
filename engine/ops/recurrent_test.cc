// Shape and type rules of the recurrent operations: gru, gruCell, lstm and
// lstmCell.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/ops/op_test_util.h"

namespace webnnm::ops {
namespace {

using testing::A;
using ::testing::ElementsAre;
using testing::F32;
using ::testing::HasSubstr;
using testing::Infer;
using testing::ShapeOf;

constexpr int64_t B = ir::kBatchDim;
constexpr int64_t S = ir::kSequenceDim;

// gru over 5 steps, batch 2, 10 input features, hidden size 20.
ir::Attrs GruAttrs(
    std::initializer_list<std::pair<std::string, ir::AttrValue>> extra = {}) {
  ir::Attrs attrs = A({{"steps", 5}, {"hiddenSize", 20}});
  for (const auto& [name, value] : extra) attrs.Set(name, value);
  return attrs;
}

TEST(Gru, ReturnsTheLastHiddenState) {
  auto result = Infer(
      "gru", {F32({5, 2, 10}), F32({1, 60, 10}), F32({1, 60, 20})}, GruAttrs());
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_THAT((*result)[0].shape, ElementsAre(1, 2, 20));
}

TEST(Gru, ReturnSequenceAddsEveryStepsState) {
  auto result =
      Infer("gru", {F32({5, 2, 10}), F32({2, 60, 10}), F32({2, 60, 20})},
            GruAttrs({{"returnSequence", true}, {"direction", "both"}}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 2u);
  EXPECT_THAT((*result)[0].shape, ElementsAre(2, 2, 20));
  EXPECT_THAT((*result)[1].shape, ElementsAre(5, 2, 2, 20));
}

TEST(Gru, OperandShapesIncludeTheDirections) {
  // "both" needs two sets of weights.
  auto weights =
      Infer("gru", {F32({5, 2, 10}), F32({1, 60, 10}), F32({1, 60, 20})},
            GruAttrs({{"direction", "both"}}));
  ASSERT_FALSE(weights.ok());
  EXPECT_EQ(ir::BlamedOperand(weights.status()), 1);
  auto recurrent = Infer(
      "gru", {F32({5, 2, 10}), F32({1, 60, 10}), F32({1, 60, 10})}, GruAttrs());
  ASSERT_FALSE(recurrent.ok());
  EXPECT_EQ(ir::BlamedOperand(recurrent.status()), 2);
}

TEST(Gru, OptionalOperandShapes) {
  const ir::TensorType x = F32({5, 2, 10}), w = F32({1, 60, 10}),
                       r = F32({1, 60, 20});
  EXPECT_TRUE(Infer("gru",
                    {x, w, r, F32({1, 60}), F32({1, 60}), F32({1, 2, 20})},
                    GruAttrs())
                  .ok());
  EXPECT_EQ(ir::BlamedOperand(
                Infer("gru", {x, w, r, F32({60})}, GruAttrs()).status()),
            3);
  EXPECT_EQ(ir::BlamedOperand(
                Infer("gru", {x, w, r, std::nullopt, F32({1, 40})}, GruAttrs())
                    .status()),
            4);
  EXPECT_EQ(
      ir::BlamedOperand(
          Infer("gru", {x, w, r, std::nullopt, std::nullopt, F32({2, 20})},
                GruAttrs())
              .status()),
      5);
}

TEST(Gru, StepsMustEqualInputDimensionZero) {
  auto result = Infer(
      "gru", {F32({4, 2, 10}), F32({1, 60, 10}), F32({1, 60, 20})}, GruAttrs());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 0);
  EXPECT_THAT(result.status().message(), HasSubstr("steps 5"));
  EXPECT_EQ(
      ir::BlamedAttr(
          Infer("gru", {F32({4, 2, 10}), F32({1, 60, 10}), F32({1, 60, 20})},
                GruAttrs({{"steps", 0}}))
              .status()),
      "steps");
}

TEST(Gru, SymbolicSequenceAndBatch) {
  auto result =
      Infer("gru", {F32({S, B, 10}), F32({1, 60, 10}), F32({1, 60, 20})},
            GruAttrs({{"steps", S}, {"returnSequence", true}}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT((*result)[0].shape, ElementsAre(1, B, 20));
  EXPECT_THAT((*result)[1].shape, ElementsAre(S, 1, B, 20));
  // The features must have a fixed size.
  EXPECT_FALSE(Infer("gru",
                     {F32({5, 2, B}), F32({1, 60, 10}), F32({1, 60, 20})},
                     GruAttrs())
                   .ok());
}

TEST(Gru, RejectsBadOptions) {
  const ir::TensorType x = F32({5, 2, 10}), w = F32({1, 60, 10}),
                       r = F32({1, 60, 20});
  auto rank = Infer("gru", {F32({2, 10}), w, r}, GruAttrs());
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(ir::BlamedOperand(rank.status()), 0);
  EXPECT_EQ(
      ir::BlamedAttr(
          Infer("gru", {x, w, r}, GruAttrs({{"hiddenSize", 0}})).status()),
      "hiddenSize");
  EXPECT_EQ(
      ir::BlamedAttr(
          Infer("gru", {x, w, r}, GruAttrs({{"layout", "ifgo"}})).status()),
      "layout");
  EXPECT_TRUE(Infer("gru", {x, w, r}, GruAttrs({{"layout", "rzn"}})).ok());
  using Names = std::vector<std::string>;
  EXPECT_TRUE(Infer("gru", {x, w, r},
                    GruAttrs({{"activations", Names{"relu", "tanh"}}}))
                  .ok());
  EXPECT_EQ(
      ir::BlamedAttr(
          Infer("gru", {x, w, r},
                GruAttrs({{"activations", Names{"sigmoid", "tanh", "tanh"}}}))
              .status()),
      "activations");
  EXPECT_EQ(
      ir::BlamedAttr(Infer("gru", {x, w, r},
                           GruAttrs({{"activations", Names{"gelu", "tanh"}}}))
                         .status()),
      "activations");
}

// WebNN issue 625: 2 * 3 * hiddenSize (the concatenated biases) must be a
// valid dimension, 2^31 - 1 at most.
TEST(Gru, RejectsHiddenSizesWhoseGateSizesOverflow) {
  const int64_t fits = 357913941;  // 6 * fits = 2147483646
  auto ok = Infer(
      "gru", {F32({1, 1, 1}), F32({1, 3 * fits, 1}), F32({1, 3 * fits, fits})},
      A({{"steps", 1}, {"hiddenSize", fits}}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_THAT(ok->front().shape, ElementsAre(1, 1, fits));
  for (int64_t hidden : {fits + 1, int64_t{1} << 31, int64_t{1} << 62}) {
    auto result = Infer("gru", {F32({1, 1, 1}), F32({1, 3, 1}), F32({1, 3, 1})},
                        A({{"steps", 1}, {"hiddenSize", hidden}}));
    ASSERT_FALSE(result.ok()) << hidden;
    EXPECT_EQ(ir::BlamedAttr(result.status()), "hiddenSize");
    EXPECT_THAT(result.status().message(), HasSubstr("too large"));
  }
}

// WebNN issue 949: the sequence output is checked even when not returned.
TEST(Gru, ValidatesTheFullSequenceEvenWithoutReturnSequence) {
  ir::Limits limits;
  // Last state [1, 2, 8] = 64 bytes; sequence [4, 1, 2, 8] = 256 bytes.
  limits.max_tensor_bytes = 100;
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({4, 2, 3}), F32({1, 24, 3}), F32({1, 24, 8})};
  auto result =
      Infer("gru", operands, A({{"steps", 4}, {"hiddenSize", 8}}), limits);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("larger than the limit"));
  limits.max_tensor_bytes = 256;
  EXPECT_TRUE(
      Infer("gru", operands, A({{"steps", 4}, {"hiddenSize", 8}}), limits)
          .ok());
}

TEST(GruCell, ShapesWithoutDirections) {
  auto result = Infer("gruCell",
                      {F32({2, 10}), F32({60, 10}), F32({60, 20}), F32({2, 20}),
                       F32({60}), F32({60})},
                      A({{"hiddenSize", 20}, {"resetAfter", false}}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 20));
  EXPECT_EQ(ir::BlamedOperand(Infer("gruCell",
                                    {F32({2, 10}), F32({60, 10}), F32({60, 20}),
                                     F32({1, 20})},
                                    A({{"hiddenSize", 20}}))
                                  .status()),
            3);
  EXPECT_EQ(ir::BlamedOperand(Infer("gruCell",
                                    {F32({2, 10}), F32({1, 60, 10}),
                                     F32({60, 20}), F32({2, 20})},
                                    A({{"hiddenSize", 20}}))
                                  .status()),
            1);
}

TEST(GruCell, HiddenStateIsRequired) {
  auto result = Infer("gruCell", {F32({2, 10}), F32({60, 10}), F32({60, 20})},
                      A({{"hiddenSize", 20}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 3);
  EXPECT_THAT(result.status().message(), HasSubstr("hiddenState"));
}

TEST(GruCell, RejectsOverflowingHiddenSize) {
  EXPECT_EQ(ir::BlamedAttr(
                Infer("gruCell",
                      {F32({2, 10}), F32({3, 10}), F32({3, 1}), F32({2, 1})},
                      A({{"hiddenSize", 357913942}}))
                    .status()),
            "hiddenSize");
}

TEST(Lstm, ReturnsHiddenAndCellStates) {
  auto result =
      Infer("lstm", {F32({5, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20})},
            A({{"steps", 5}, {"hiddenSize", 20}}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 2u);
  EXPECT_THAT((*result)[0].shape, ElementsAre(1, 2, 20));
  EXPECT_THAT((*result)[1].shape, ElementsAre(1, 2, 20));
  auto sequence =
      Infer("lstm", {F32({5, 2, 10}), F32({2, 80, 10}), F32({2, 80, 20})},
            A({{"steps", 5},
               {"hiddenSize", 20},
               {"direction", "both"},
               {"returnSequence", true}}));
  ASSERT_TRUE(sequence.ok()) << sequence.status();
  ASSERT_EQ(sequence->size(), 3u);
  EXPECT_THAT((*sequence)[2].shape, ElementsAre(5, 2, 2, 20));
}

TEST(Lstm, OptionalOperandShapes) {
  const ir::TensorType x = F32({5, 2, 10}), w = F32({1, 80, 10}),
                       r = F32({1, 80, 20});
  const ir::Attrs attrs = A({{"steps", 5}, {"hiddenSize", 20}});
  EXPECT_TRUE(Infer("lstm",
                    {x, w, r, F32({1, 80}), F32({1, 80}), F32({1, 60}),
                     F32({1, 2, 20}), F32({1, 2, 20})},
                    attrs)
                  .ok());
  // peepholeWeight has three gates, not four.
  EXPECT_EQ(
      ir::BlamedOperand(
          Infer("lstm", {x, w, r, std::nullopt, std::nullopt, F32({1, 80})},
                attrs)
              .status()),
      5);
  EXPECT_EQ(
      ir::BlamedOperand(Infer("lstm",
                              {x, w, r, std::nullopt, std::nullopt,
                               std::nullopt, std::nullopt, F32({1, 1, 20})},
                              attrs)
                            .status()),
      7);
  EXPECT_FALSE(Infer("lstm", {x, F32({1, 60, 10}), r}, attrs).ok());
}

TEST(Lstm, LayoutsAndActivations) {
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({5, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20})};
  using Names = std::vector<std::string>;
  EXPECT_TRUE(Infer("lstm", operands,
                    A({{"steps", 5},
                       {"hiddenSize", 20},
                       {"layout", "ifgo"},
                       {"activations", Names{"sigmoid", "relu", "relu"}}}))
                  .ok());
  EXPECT_EQ(ir::BlamedAttr(Infer("lstm", operands,
                                 A({{"steps", 5},
                                    {"hiddenSize", 20},
                                    {"activations", Names{"sigmoid", "tanh"}}}))
                               .status()),
            "activations");
  EXPECT_EQ(ir::BlamedAttr(
                Infer("lstm", operands,
                      A({{"steps", 5}, {"hiddenSize", 20}, {"layout", "zrn"}}))
                    .status()),
            "layout");
}

// WebNN issue 625 for LSTM: 2 * 4 * hiddenSize must be a valid dimension.
TEST(Lstm, RejectsHiddenSizesWhoseGateSizesOverflow) {
  const int64_t fits = 268435455;  // 8 * fits = 2147483640
  EXPECT_TRUE(
      Infer("lstm",
            {F32({1, 1, 1}), F32({1, 4 * fits, 1}), F32({1, 4 * fits, fits})},
            A({{"steps", 1}, {"hiddenSize", fits}}))
          .ok());
  auto result = Infer("lstm", {F32({1, 1, 1}), F32({1, 4, 1}), F32({1, 4, 1})},
                      A({{"steps", 1}, {"hiddenSize", fits + 1}}));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedAttr(result.status()), "hiddenSize");
}

// WebNN issue 949 for LSTM.
TEST(Lstm, ValidatesTheFullSequenceEvenWithoutReturnSequence) {
  ir::Limits limits;
  limits.max_tensor_bytes = 1000;  // states: 40 bytes; sequence: 4000
  auto result =
      Infer("lstm", {F32({100, 1, 2}), F32({1, 40, 2}), F32({1, 40, 10})},
            A({{"steps", 100}, {"hiddenSize", 10}}), limits);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("1000 bytes"));
}

TEST(LstmCell, ReturnsHiddenAndCellStates) {
  auto result = Infer("lstmCell",
                      {F32({2, 10}), F32({80, 10}), F32({80, 20}), F32({2, 20}),
                       F32({2, 20}), F32({80}), F32({80}), F32({60})},
                      A({{"hiddenSize", 20}}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 2u);
  EXPECT_THAT((*result)[0].shape, ElementsAre(2, 20));
  EXPECT_THAT((*result)[1].shape, ElementsAre(2, 20));
}

TEST(LstmCell, ChecksStatesAndParameters) {
  const ir::TensorType x = F32({2, 10}), w = F32({80, 10}), r = F32({80, 20}),
                       h = F32({2, 20});
  const ir::Attrs attrs = A({{"hiddenSize", 20}});
  EXPECT_EQ(ir::BlamedOperand(Infer("lstmCell", {x, w, r, h}, attrs).status()),
            4);
  EXPECT_EQ(ir::BlamedOperand(
                Infer("lstmCell", {x, w, r, h, F32({2, 10})}, attrs).status()),
            4);
  EXPECT_EQ(ir::BlamedOperand(
                Infer("lstmCell", {x, w, r, h, h, F32({60})}, attrs).status()),
            5);
  EXPECT_EQ(
      ir::BlamedOperand(
          Infer("lstmCell",
                {x, w, r, h, h, std::nullopt, std::nullopt, F32({80})}, attrs)
              .status()),
      7);
  EXPECT_EQ(ir::BlamedAttr(Infer("lstmCell", {x, w, r, h, h},
                                 A({{"hiddenSize", 268435456}}))
                               .status()),
            "hiddenSize");
}

}  // namespace
}  // namespace webnnm::ops
