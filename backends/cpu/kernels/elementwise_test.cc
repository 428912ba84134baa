// CPU kernels of the element-wise operations, on cases worked out by hand.
#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::F16;
using testing::F32;
using ::testing::IsNan;
using testing::Of;
using testing::RunOne;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Unary, MathOnFloat32AndFloat16) {
  EXPECT_THAT(RunOne("sqrt", {F32({3}, {4, 2.25, -1})}).values,
              ElementsAre(2, 1.5, IsNan()));
  // float16 rounds each result: e^1 = 2.71828... -> 2.71875.
  EXPECT_THAT(RunOne("exp", {F16({2}, {1, 0})}).values,
              ElementsAre(2.71875, 1));
  EXPECT_THAT(RunOne("roundEven", {F32({4}, {0.5, 1.5, 2.5, -2.5})}).values,
              ElementsAre(0, 2, 2, -2));
}

TEST(Unary, IntegerNegationWrapsAround) {
  EXPECT_THAT(RunOne("neg", {Of(ir::DType::kInt8, {2}, {-128, 5})}).values,
              ElementsAre(-128, -5));
  EXPECT_THAT(RunOne("abs", {Of(ir::DType::kInt8, {2}, {-128, -7})}).values,
              ElementsAre(-128, 7));
}

TEST(Unary, ActivationsWithOptions) {
  EXPECT_THAT(
      RunOne("leakyRelu", {F32({2}, {-2, 3})}, A({{"alpha", 0.5}})).values,
      ElementsAre(-1, 3));
  EXPECT_THAT(RunOne("softplus", {F32({2}, {100, -100})}).values,
              ElementsAre(DoubleNear(100, 1e-5), DoubleNear(0, 1e-30)));
  EXPECT_THAT(RunOne("hardSwish", {F32({3}, {-4, 0, 3})}).values,
              ElementsAre(0, 0, 3));
}

TEST(Clamp, BoundsAndNaN) {
  EXPECT_THAT(RunOne("clamp", {F32({3}, {-5, 0.5, 9})},
                     A({{"minValue", 0.0}, {"maxValue", 1.0}}))
                  .values,
              ElementsAre(0, 0.5, 1));
  EXPECT_THAT(RunOne("clamp", {F32({1}, {NAN})}, A({{"minValue", 0.0}})).values,
              ElementsAre(IsNan()));
  // Integer bounds are truncated to the input's type.
  EXPECT_THAT(RunOne("clamp", {Of(ir::DType::kInt32, {3}, {1, 3, 5})},
                     A({{"minValue", 2.7}, {"maxValue", 4.2}}))
                  .values,
              ElementsAre(2, 3, 4));
}

TEST(Binary, BroadcastsRowsAndColumns) {
  EXPECT_THAT(
      RunOne("sub", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({2, 1}, {1, 10})})
          .values,
      ElementsAre(0, 1, 2, -6, -5, -4));
  EXPECT_THAT(
      RunOne("mul", {F32({1, 3}, {1, 2, 3}), F32({2, 1}, {2, 3})}).values,
      ElementsAre(2, 4, 6, 3, 6, 9));
}

TEST(Binary, IntegerArithmeticWrapsAndNeverTraps) {
  EXPECT_THAT(RunOne("add", {Of(ir::DType::kUint8, {2}, {250, 1}),
                             Of(ir::DType::kUint8, {2}, {10, 1})})
                  .values,
              ElementsAre(4, 2));
  EXPECT_THAT(RunOne("div", {Of(ir::DType::kInt32, {3}, {7, -7, 5}),
                             Of(ir::DType::kInt32, {3}, {2, 2, 0})})
                  .values,
              ElementsAre(3, -3, 0));
  EXPECT_THAT(RunOne("pow", {Of(ir::DType::kInt64, {3}, {2, 3, -2}),
                             Of(ir::DType::kInt64, {3}, {10, 0, 3})})
                  .values,
              ElementsAre(1024, 1, -8));
}

TEST(Binary, MaxAndMinPropagateNaN) {
  EXPECT_THAT(RunOne("max", {F32({2}, {NAN, 1}), F32({2}, {1, 2})}).values,
              ElementsAre(IsNan(), 2));
  EXPECT_THAT(RunOne("min", {F32({2}, {1, -kInf}), F32({2}, {NAN, 2})}).values,
              ElementsAre(IsNan(), -kInf));
}

TEST(Comparison, GivesZeroOrOne) {
  EXPECT_THAT(
      RunOne("lesserOrEqual", {F32({3}, {1, 2, NAN}), F32({1}, {2})}).values,
      ElementsAre(1, 1, 0));
  EXPECT_THAT(RunOne("logicalXor", {Of(ir::DType::kUint8, {3}, {0, 7, 7}),
                                    Of(ir::DType::kUint8, {3}, {3, 0, 1})})
                  .values,
              ElementsAre(1, 1, 0));
}

TEST(Where, BroadcastsAllThree) {
  EXPECT_THAT(RunOne("where", {Of(ir::DType::kUint8, {2, 1}, {1, 0}),
                               F32({1, 2}, {1, 2}), F32({}, {-1})})
                  .values,
              ElementsAre(1, 2, -1, -1));
}

TEST(Where, FullConditionWithSingleValues) {
  // A full condition with each side a tensor or one value (the relu
  // gradient's where(mask, dy, 0)), in every pairing; conditions other
  // than 1 count as true.
  auto cond = [] { return Of(ir::DType::kUint8, {2, 2}, {1, 0, 255, 0}); };
  EXPECT_THAT(
      RunOne("where", {cond(), F32({2, 2}, {1, 2, 3, 4}), F32({}, {-1})})
          .values,
      ElementsAre(1, -1, 3, -1));
  EXPECT_THAT(
      RunOne("where", {cond(), F32({1}, {7}), F32({2, 2}, {5, 6, 7, 8})})
          .values,
      ElementsAre(7, 6, 7, 8));
  EXPECT_THAT(RunOne("where", {cond(), F32({}, {9}), F32({1, 1}, {-9})}).values,
              ElementsAre(9, -9, 9, -9));
  EXPECT_THAT(
      RunOne("where", {cond(), F16({2, 2}, {1, 2, 3, 4}), F16({}, {-0.5})})
          .values,
      ElementsAre(1, -0.5, 3, -0.5));
  EXPECT_THAT(
      RunOne("where",
             {cond(), Of(ir::DType::kInt64, {2, 2}, {1, 2, 3, 4000000000000}),
              Of(ir::DType::kInt64, {}, {-5})})
          .values,
      ElementsAre(1, -5, 3, -5));
}

TEST(Prelu, SlopePerChannel) {
  EXPECT_THAT(
      RunOne("prelu", {F32({2, 2}, {-1, -1, 2, -4}), F32({2}, {0.5, 0.25})})
          .values,
      ElementsAre(-0.5, -0.25, 2, -1));
}

}  // namespace
}  // namespace webnnm::backends::cpu
