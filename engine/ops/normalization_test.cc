// Shape and type rules of batchNormalization, instanceNormalization and
// layerNormalization.
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

TEST(BatchNormalization, DefaultAxisIsOne) {
  auto result =
      Infer("batchNormalization", {F32({2, 3, 4, 4}), F32({3}), F32({3})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->front().dtype, ir::DType::kFloat32);
  EXPECT_THAT(result->front().shape, ElementsAre(2, 3, 4, 4));
  auto wrong =
      Infer("batchNormalization", {F32({2, 3, 4, 4}), F32({4}), F32({3})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(ir::BlamedOperand(wrong.status()), 1);
}

TEST(BatchNormalization, ParametersFollowTheChosenAxis) {
  EXPECT_THAT(
      ShapeOf(Infer("batchNormalization",
                    {F32({2, 3, 5, 4}), F32({4}), F32({4}), F32({4}), F32({4})},
                    A({{"axis", 3}, {"epsilon", 1e-3}}))),
      ElementsAre(2, 3, 5, 4));
  auto variance =
      Infer("batchNormalization", {F32({2, 3, 5, 4}), F32({4}), F32({5})},
            A({{"axis", 3}}));
  ASSERT_FALSE(variance.ok());
  EXPECT_EQ(ir::BlamedOperand(variance.status()), 2);
}

TEST(BatchNormalization, ScaleAndBiasAreOneDimensional) {
  auto scale = Infer("batchNormalization",
                     {F32({2, 3}), F32({3}), F32({3}), F32({1, 3})});
  ASSERT_FALSE(scale.ok());
  EXPECT_EQ(ir::BlamedOperand(scale.status()), 3);
  auto bias = Infer("batchNormalization", {F32({2, 3}), F32({3}), F32({3}),
                                           std::nullopt, F32({3, 1})});
  ASSERT_FALSE(bias.ok());
  EXPECT_EQ(ir::BlamedOperand(bias.status()), 4);
  EXPECT_THAT(bias.status().message(), HasSubstr("must have shape [3]"));
}

TEST(BatchNormalization, RejectsAxisOutOfRangeOrSymbolic) {
  auto range = Infer("batchNormalization", {F32({2, 3}), F32({3}), F32({3})},
                     A({{"axis", 2}}));
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(ir::BlamedAttr(range.status()), "axis");
  auto batch = Infer("batchNormalization", {F32({B, 3}), F32({3}), F32({3})},
                     A({{"axis", 0}}));
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(ir::BlamedAttr(batch.status()), "axis");
  // Normalizing the channels of a batch of symbolic size is fine.
  EXPECT_THAT(ShapeOf(Infer("batchNormalization",
                            {F32({B, 3, 2, 2}), F32({3}), F32({3})})),
              ElementsAre(B, 3, 2, 2));
}

TEST(BatchNormalization, MeanAndVarianceAreRequiredFloatsOfTheInputType) {
  auto missing = Infer("batchNormalization", {F32({2, 3}), F32({3})});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(ir::BlamedOperand(missing.status()), 2);
  EXPECT_FALSE(Infer("batchNormalization",
                     {F32({2, 3}), T(ir::DType::kFloat16, {3}), F32({3})})
                   .ok());
  EXPECT_FALSE(Infer("batchNormalization",
                     {T(ir::DType::kInt32, {2, 3}), T(ir::DType::kInt32, {3}),
                      T(ir::DType::kInt32, {3})})
                   .ok());
  EXPECT_FALSE(Infer("batchNormalization", {F32({}), F32({1}), F32({1})}).ok());
}

TEST(BatchNormalization, AliasBatchNorm) {
  EXPECT_THAT(ShapeOf(Infer("batchNorm", {F32({2, 3}), F32({3}), F32({3})})),
              ElementsAre(2, 3));
}

// WebNN's default axis is 1 whatever the rank, so a 1-D input needs an
// explicit axis 0.
TEST(BatchNormalization, DefaultAxisOneIsOutOfRangeForRankOne) {
  EXPECT_FALSE(
      Infer("batchNormalization", {F32({4}), F32({4}), F32({4})}).ok());
}

TEST(InstanceNormalization, ScaleAndBiasFollowTheChannels) {
  auto nchw =
      Infer("instanceNormalization", {F32({2, 3, 8, 8}), F32({3}), F32({3})});
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  EXPECT_THAT(nchw->front().shape, ElementsAre(2, 3, 8, 8));
  EXPECT_EQ(nchw->front().channel_axis, 1);
  auto nhwc =
      Infer("instanceNormalization", {F32({2, 8, 8, 3}), F32({3}), F32({3})},
            A({{"layout", "nhwc"}}));
  ASSERT_TRUE(nhwc.ok()) << nhwc.status();
  EXPECT_EQ(nhwc->front().channel_axis, 3);
  auto wrong = Infer("instanceNormalization", {F32({2, 3, 8, 8}), F32({8})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(ir::BlamedOperand(wrong.status()), 1);
  EXPECT_FALSE(Infer("instanceNormalization", {F32({2, 8, 8, 3}), F32({3})},
                     A({{"layout", "nchw"}}))
                   .ok());
}

TEST(InstanceNormalization, ScaleAndBiasAreOptional) {
  EXPECT_THAT(ShapeOf(Infer("instanceNormalization", {F32({B, 3, 4, 4})},
                            A({{"epsilon", 0.01}}))),
              ElementsAre(B, 3, 4, 4));
  EXPECT_TRUE(Infer("instanceNormalization",
                    {F32({1, 3, 4, 4}), std::nullopt, F32({3})})
                  .ok());
  EXPECT_EQ(ir::BlamedOperand(Infer("instanceNormalization",
                                    {F32({1, 3, 4, 4}), std::nullopt, F32({4})})
                                  .status()),
            2);
}

TEST(InstanceNormalization, NeedsRankFourAndFixedChannels) {
  EXPECT_EQ(ir::BlamedOperand(
                Infer("instanceNormalization", {F32({2, 3, 8})}).status()),
            0);
  EXPECT_FALSE(
      Infer("instanceNormalization", {F32({1, B, 4, 4}), F32({3})}).ok());
  EXPECT_EQ(ir::BlamedAttr(Infer("instanceNormalization", {F32({1, 3, 4, 4})},
                                 A({{"layout", "ncdhw"}}))
                               .status()),
            "layout");
  EXPECT_THAT(ShapeOf(Infer("instanceNorm", {F32({1, 3, 4, 4})})),
              ElementsAre(1, 3, 4, 4));
}

TEST(LayerNormalization, DefaultAxesAreAllButTheFirst) {
  EXPECT_THAT(ShapeOf(Infer("layerNormalization",
                            {F32({2, 3, 4}), F32({3, 4}), F32({3, 4})})),
              ElementsAre(2, 3, 4));
  auto result =
      Infer("layerNormalization", {F32({2, 3, 4}), F32({4}), F32({4})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(ir::BlamedOperand(result.status()), 1);
  EXPECT_THAT(result.status().message(), HasSubstr("[3, 4]"));
}

TEST(LayerNormalization, ScaleShapeListsTheDimensionsAtAxesInOrder) {
  EXPECT_TRUE(Infer("layerNormalization", {F32({2, 3, 4}), F32({4, 3})},
                    A({{"axes", Ints{2, 1}}}))
                  .ok());
  EXPECT_FALSE(Infer("layerNormalization", {F32({2, 3, 4}), F32({3, 4})},
                     A({{"axes", Ints{2, 1}}}))
                   .ok());
  auto bias = Infer("layerNormalization", {F32({2, 3, 4}), F32({2}), F32({3})},
                    A({{"axes", Ints{0}}}));
  ASSERT_FALSE(bias.ok());
  EXPECT_EQ(ir::BlamedOperand(bias.status()), 2);
}

TEST(LayerNormalization, EmptyAxesTakeScalarParameters) {
  EXPECT_TRUE(Infer("layerNormalization", {F32({2, 3}), F32({}), F32({})},
                    A({{"axes", Ints{}}}))
                  .ok());
  // A 1-D input has no axis after the first: the default axes are empty.
  EXPECT_TRUE(Infer("layerNormalization", {F32({5}), F32({})}).ok());
  EXPECT_FALSE(Infer("layerNormalization", {F32({5}), F32({5})}).ok());
}

TEST(LayerNormalization, RejectsBadAxes) {
  EXPECT_EQ(ir::BlamedAttr(Infer("layerNormalization", {F32({2, 3})},
                                 A({{"axes", Ints{1, 1}}}))
                               .status()),
            "axes");
  EXPECT_EQ(ir::BlamedAttr(Infer("layerNormalization", {F32({2, 3})},
                                 A({{"axes", Ints{2}}}))
                               .status()),
            "axes");
  // Parameters cannot span the batch dimension.
  auto batch =
      Infer("layerNormalization", {F32({B, 3})}, A({{"axes", Ints{0, 1}}}));
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(ir::BlamedAttr(batch.status()), "axes");
  EXPECT_THAT(ShapeOf(Infer("layerNorm", {F32({B, 3}), F32({3})})),
              ElementsAre(B, 3));
}

}  // namespace
}  // namespace webnnm::ops
