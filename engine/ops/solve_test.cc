// The parameter-shape solvers (OpDef::solve): the shape of a trainable
// parameter from the other operands and the layer's expected output type.
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
using testing::T;

using Ints = std::vector<int64_t>;
constexpr int64_t B = ir::kBatchDim;
constexpr int64_t S = ir::kSequenceDim;

// Solves operand `slot` of `op`; `operands[slot]` must be std::nullopt.
absl::StatusOr<ir::TensorType> Solve(
    const std::string& op, std::vector<std::optional<ir::TensorType>> operands,
    int slot, std::optional<ir::TensorType> expected,
    const ir::Attrs& attrs = {}) {
  const ir::OpDef* def = ir::FindOp(op);
  if (def == nullptr || def->solve == nullptr) {
    return absl::NotFoundError("no solver for " + op);
  }
  std::vector<const ir::TensorType*> pointers;
  for (const auto& operand : operands) {
    pointers.push_back(operand ? &*operand : nullptr);
  }
  const ir::Limits limits;
  ir::InferContext context{*def, pointers, attrs, limits};
  return def->solve(context, expected ? &*expected : nullptr, slot);
}

// The solved shape, or {-999} on error (for compact asserts).
std::vector<int64_t> SolvedShape(const absl::StatusOr<ir::TensorType>& type) {
  if (!type.ok()) return {-999};
  return type->shape;
}

// Solves `slot`, puts the result (as float32) in place and runs the rule.
absl::StatusOr<std::vector<ir::TensorType>> SolveAndInfer(
    const std::string& op, std::vector<std::optional<ir::TensorType>> operands,
    int slot, const ir::TensorType& expected, const ir::Attrs& attrs = {}) {
  absl::StatusOr<ir::TensorType> solved =
      Solve(op, operands, slot, expected, attrs);
  if (!solved.ok()) return solved.status();
  operands[slot] = F32(solved->shape);
  return Infer(op, operands, attrs);
}

TEST(SolveMatmul, WeightsAreInputFeaturesByOutputFeatures) {
  auto b = Solve("matmul", {F32({B, 8}, {"batch", "features"}), std::nullopt},
                 1, F32({B, 16}, {"batch", "units"}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->shape, ElementsAre(8, 16));
  EXPECT_THAT(b->names, ElementsAre("features", "units"));
  EXPECT_THAT(ShapeOf(SolveAndInfer("matmul", {F32({B, 5, 8}), std::nullopt}, 1,
                                    F32({B, 5, 3}))),
              ElementsAre(B, 5, 3));
}

TEST(SolveMatmul, NeedsTheExpectedOutputAndOnlySolvesB) {
  auto none = Solve("matmul", {F32({B, 8}), std::nullopt}, 1, std::nullopt);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("output shape"));
  EXPECT_FALSE(
      Solve("matmul", {std::nullopt, F32({8, 16})}, 0, F32({B, 16})).ok());
  // The weights cannot span a symbolic dimension.
  EXPECT_FALSE(
      Solve("matmul", {F32({4, B}), std::nullopt}, 1, F32({4, 16})).ok());
}

TEST(SolveGemm, WeightsFollowBTranspose) {
  EXPECT_THAT(
      SolvedShape(Solve("gemm", {F32({B, 8}), std::nullopt}, 1, F32({B, 16}))),
      ElementsAre(8, 16));
  const ir::Attrs transposed = A({{"bTranspose", true}});
  EXPECT_THAT(SolvedShape(Solve("gemm", {F32({B, 8}), std::nullopt}, 1,
                                F32({B, 16}), transposed)),
              ElementsAre(16, 8));
  EXPECT_THAT(ShapeOf(SolveAndInfer("gemm", {F32({4, 8}), std::nullopt}, 1,
                                    F32({4, 16}), transposed)),
              ElementsAre(4, 16));
  // With aTranspose, K is the first dimension of a.
  EXPECT_THAT(SolvedShape(Solve("gemm", {F32({8, 4}), std::nullopt}, 1,
                                F32({4, 16}), A({{"aTranspose", true}}))),
              ElementsAre(8, 16));
}

TEST(SolveGemm, BiasHasOneValuePerOutputColumn) {
  EXPECT_THAT(
      SolvedShape(Solve("gemm", {F32({4, 8}), F32({8, 16}), std::nullopt}, 2,
                        std::nullopt)),
      ElementsAre(16));
  EXPECT_THAT(
      SolvedShape(Solve("gemm", {F32({4, 8}), F32({16, 8}), std::nullopt}, 2,
                        std::nullopt, A({{"bTranspose", true}}))),
      ElementsAre(16));
  EXPECT_FALSE(
      Solve("gemm", {F32({4, 8}), std::nullopt}, 1, std::nullopt).ok());
}

TEST(SolveConv2d, FilterFromChannelsAndTheSmallestKernel) {
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({B, 3, 32, 32}), std::nullopt};
  auto filter = Solve("conv2d", operands, 1, F32({B, 16, 30, 30}));
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_THAT(filter->shape, ElementsAre(16, 3, 3, 3));
  // Non-square: a 5x1 kernel gives 28x32.
  EXPECT_THAT(SolvedShape(Solve("conv2d", operands, 1, F32({B, 8, 28, 32}))),
              ElementsAre(8, 3, 5, 1));
}

TEST(SolveConv2d, PaddingStridesAndDilationsChangeTheKernel) {
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({B, 3, 32, 32}), std::nullopt};
  const ir::Attrs same = A({{"padding", Ints{1, 1, 1, 1}}});
  EXPECT_THAT(
      SolvedShape(Solve("conv2d", operands, 1, F32({B, 4, 32, 32}), same)),
      ElementsAre(4, 3, 3, 3));
  // With stride 2 the smallest kernel giving 16 is 1.
  EXPECT_THAT(SolvedShape(Solve("conv2d", operands, 1, F32({B, 4, 16, 16}),
                                A({{"strides", Ints{2, 2}}}))),
              ElementsAre(4, 3, 1, 1));
  // Dilation 2: effective 5 needs kernel 3.
  const ir::Attrs dilated = A({{"dilations", Ints{2, 2}}});
  EXPECT_THAT(
      SolvedShape(Solve("conv2d", operands, 1, F32({B, 4, 28, 28}), dilated)),
      ElementsAre(4, 3, 3, 3));
  EXPECT_THAT(ShapeOf(SolveAndInfer("conv2d", operands, 1, F32({B, 4, 28, 28}),
                                    dilated)),
              ElementsAre(B, 4, 28, 28));
}

TEST(SolveConv2d, LayoutsAndGroups) {
  EXPECT_THAT(SolvedShape(Solve(
                  "conv2d", {F32({B, 32, 32, 3}), std::nullopt}, 1,
                  F32({B, 30, 30, 16}),
                  A({{"inputLayout", "nhwc"}, {"filterLayout", "hwio"}}))),
              ElementsAre(3, 3, 3, 16));
  EXPECT_THAT(SolvedShape(Solve("conv2d", {F32({B, 4, 8, 8}), std::nullopt}, 1,
                                F32({B, 6, 6, 6}), A({{"groups", 2}}))),
              ElementsAre(6, 2, 3, 3));
  EXPECT_FALSE(Solve("conv2d", {F32({B, 3, 8, 8}), std::nullopt}, 1,
                     F32({B, 6, 6, 6}), A({{"groups", 2}}))
                   .ok());
}

TEST(SolveConv2d, ImpossibleOutputsAreErrors) {
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({B, 3, 8, 8}), std::nullopt};
  // Larger than the unpadded input.
  EXPECT_FALSE(Solve("conv2d", operands, 1, F32({B, 4, 10, 8})).ok());
  // With dilation 3 the effective sizes are 1, 4, 7, ...: none gives 6.
  auto result = Solve("conv2d", operands, 1, F32({B, 4, 6, 8}),
                      A({{"dilations", Ints{3, 1}}}));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("kernel height"));
  EXPECT_FALSE(Solve("conv2d", operands, 1, std::nullopt).ok());
}

TEST(SolveConv2d, BiasHasOneValuePerOutputChannel) {
  EXPECT_THAT(
      SolvedShape(Solve("conv2d",
                        {F32({B, 3, 8, 8}), F32({16, 3, 3, 3}), std::nullopt},
                        2, std::nullopt)),
      ElementsAre(16));
  EXPECT_THAT(
      SolvedShape(Solve("conv2d",
                        {F32({B, 8, 8, 3}), F32({3, 3, 3, 5}), std::nullopt}, 2,
                        std::nullopt, A({{"filterLayout", "hwio"}}))),
      ElementsAre(5));
  EXPECT_THAT(SolvedShape(Solve("conv2d",
                                {F32({B, 3, 8, 8}), std::nullopt, std::nullopt},
                                2, F32({B, 7, 6, 6}))),
              ElementsAre(7));
}

TEST(SolveConvTranspose2d, FilterFromTheUpsampledSize) {
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({B, 8, 4, 4}), std::nullopt};
  const ir::Attrs strided = A({{"strides", Ints{2, 2}}});
  // 8 = (4 - 1) * 2 + k  =>  k = 2.
  auto filter =
      Solve("convTranspose2d", operands, 1, F32({B, 16, 8, 8}), strided);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_THAT(filter->shape, ElementsAre(8, 16, 2, 2));
  EXPECT_THAT(ShapeOf(SolveAndInfer("convTranspose2d", operands, 1,
                                    F32({B, 16, 9, 8}), strided)),
              ElementsAre(B, 16, 9, 8));
  EXPECT_THAT(
      SolvedShape(Solve("convTranspose2d", operands, 1, F32({B, 16, 8, 8}),
                        A({{"strides", Ints{2, 2}}, {"groups", 4}}))),
      ElementsAre(8, 4, 2, 2));
  EXPECT_THAT(SolvedShape(Solve("convTranspose2d", operands, 2,
                                F32({B, 16, 8, 8}), strided)),
              ElementsAre(16));
  // Smaller than the input with stride 2: no kernel.
  EXPECT_FALSE(
      Solve("convTranspose2d", operands, 1, F32({B, 16, 4, 4}), strided).ok());
}

TEST(SolveNormalization, ParametersFollowTheNormalizedDimensions) {
  const ir::TensorType image = F32({B, 16, 8, 8});
  for (int slot : {1, 2, 3, 4}) {
    EXPECT_THAT(SolvedShape(Solve("batchNormalization",
                                  {image, std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt},
                                  slot, image)),
                ElementsAre(16))
        << slot;
  }
  auto named =
      Solve("batchNormalization",
            {F32({B, 5}, {"batch", "units"}), std::nullopt, std::nullopt}, 1,
            std::nullopt, A({{"axis", 1}}));
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_THAT(named->names, ElementsAre("units"));
  EXPECT_FALSE(Solve("batchNormalization", {image, std::nullopt, std::nullopt},
                     1, std::nullopt, A({{"axis", 0}}))
                   .ok());
  EXPECT_THAT(SolvedShape(Solve("instanceNormalization",
                                {F32({B, 8, 8, 16}), std::nullopt}, 1,
                                std::nullopt, A({{"layout", "nhwc"}}))),
              ElementsAre(16));
  EXPECT_THAT(
      SolvedShape(Solve("layerNormalization", {F32({B, 4, 6}), std::nullopt}, 1,
                        std::nullopt)),
      ElementsAre(4, 6));
  EXPECT_THAT(
      SolvedShape(Solve("layerNormalization", {F32({B, 4, 6}), std::nullopt}, 2,
                        std::nullopt, A({{"axes", Ints{2}}}))),
      ElementsAre(6));
  EXPECT_FALSE(Solve("layerNormalization", {F32({B, 4, 6}), std::nullopt}, 1,
                     std::nullopt, A({{"axes", Ints{0, 1}}}))
                   .ok());
}

TEST(SolveRecurrent, WeightsIncludeGatesAndDirections) {
  const ir::Attrs gru =
      A({{"steps", S}, {"hiddenSize", 20}, {"direction", "both"}});
  const std::vector<std::optional<ir::TensorType>> operands = {
      F32({S, B, 10}), std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_THAT(SolvedShape(Solve("gru", operands, 1, std::nullopt, gru)),
              ElementsAre(2, 60, 10));
  EXPECT_THAT(SolvedShape(Solve("gru", operands, 2, std::nullopt, gru)),
              ElementsAre(2, 60, 20));
  EXPECT_THAT(SolvedShape(Solve("gru", operands, 4, std::nullopt, gru)),
              ElementsAre(2, 60));
  // The initial state has [directions, batch, hiddenSize].
  EXPECT_THAT(SolvedShape(Solve("gru", operands, 5, std::nullopt, gru)),
              ElementsAre(2, B, 20));
  EXPECT_FALSE(Solve("gru", operands, 0, std::nullopt, gru).ok());

  const ir::Attrs lstm = A({{"steps", S}, {"hiddenSize", 20}});
  EXPECT_THAT(SolvedShape(Solve("lstm", operands, 1, std::nullopt, lstm)),
              ElementsAre(1, 80, 10));
  EXPECT_THAT(SolvedShape(Solve("lstm", operands, 3, std::nullopt, lstm)),
              ElementsAre(1, 80));
  EXPECT_THAT(SolvedShape(Solve("lstm", operands, 5, std::nullopt, lstm)),
              ElementsAre(1, 60));
  EXPECT_THAT(SolvedShape(Solve("lstmCell", {F32({B, 10})}, 2, std::nullopt,
                                A({{"hiddenSize", 20}}))),
              ElementsAre(80, 20));
  EXPECT_THAT(SolvedShape(Solve("gruCell", {F32({B, 10})}, 3, std::nullopt,
                                A({{"hiddenSize", 20}}))),
              ElementsAre(B, 20));
  EXPECT_FALSE(Solve("lstm", operands, 1, std::nullopt,
                     A({{"steps", S}, {"hiddenSize", 0}}))
                   .ok());
}

TEST(SolveAttend, ProjectionsFromFeaturesAndTheDeclaredSize) {
  const std::vector<std::optional<ir::TensorType>> self = {
      F32({B, 7, 32}), std::nullopt, std::nullopt, std::nullopt};
  EXPECT_THAT(SolvedShape(Solve("attend", self, 1, F32({B, 7, 64}))),
              ElementsAre(32, 64));
  EXPECT_THAT(SolvedShape(Solve("attend", self, 3, F32({B, 7, 64}))),
              ElementsAre(32, 64));
  // Without a declared shape the model size is kept.
  EXPECT_THAT(SolvedShape(Solve("attend", self, 2, std::nullopt)),
              ElementsAre(32, 32));
  const std::vector<std::optional<ir::TensorType>> cross = {
      F32({B, 7, 32}), std::nullopt, std::nullopt, std::nullopt,
      F32({B, 9, 48})};
  EXPECT_THAT(SolvedShape(Solve("attend", cross, 2, F32({B, 7, 64}))),
              ElementsAre(48, 64));
  EXPECT_THAT(SolvedShape(Solve("attend", cross, 3, F32({B, 7, 64}))),
              ElementsAre(48, 64));
  EXPECT_FALSE(Solve("attend", self, 4, F32({B, 7, 64})).ok());
}

TEST(SolveScatter, UpdatesShapes) {
  EXPECT_THAT(SolvedShape(Solve(
                  "scatterElements",
                  {F32({4, 3}), T(ir::DType::kInt32, {2, 3}), std::nullopt}, 2,
                  std::nullopt)),
              ElementsAre(2, 3));
  EXPECT_FALSE(Solve("scatterElements",
                     {F32({B, 3}), T(ir::DType::kInt32, {B, 3}), std::nullopt},
                     2, std::nullopt)
                   .ok());
  EXPECT_THAT(SolvedShape(Solve(
                  "scatterND",
                  {F32({4, 5, 6}), T(ir::DType::kInt32, {3, 2}), std::nullopt},
                  2, std::nullopt)),
              ElementsAre(3, 6));
  EXPECT_FALSE(Solve("scatterND",
                     {F32({4, 5}), T(ir::DType::kInt32, {3, 3}), std::nullopt},
                     2, std::nullopt)
                   .ok());
}

TEST(SolveWhere, OneValuePerChannelOfAKnownOperand) {
  EXPECT_THAT(
      SolvedShape(Solve(
          "where", {T(ir::DType::kUint8, {B, 8}), std::nullopt, F32({B, 8})}, 1,
          std::nullopt)),
      ElementsAre(8));
  EXPECT_THAT(SolvedShape(Solve("where",
                                {T(ir::DType::kUint8, {B, 3, 4, 4},
                                   {"batch", "channels", "height", "width"}),
                                 F32({B, 3, 4, 4}), std::nullopt},
                                2, std::nullopt)),
              ElementsAre(3, 1, 1));
  // Only scalars known: the expected output decides.
  EXPECT_THAT(
      SolvedShape(Solve("where",
                        {T(ir::DType::kUint8, {}), std::nullopt, std::nullopt},
                        1, F32({B, 5}))),
      ElementsAre(5));
  EXPECT_FALSE(Solve("where",
                     {T(ir::DType::kUint8, {}), std::nullopt, std::nullopt}, 1,
                     std::nullopt)
                   .ok());
}

}  // namespace
}  // namespace webnnm::ops
