// CPU kernels of cast, quantizeLinear and dequantizeLinear, on cases worked
// out by hand.
#include <cmath>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::ElementsAre;
using testing::F16;
using testing::F32;
using ::testing::IsNan;
using testing::Of;
using testing::RunOne;
using DT = ir::DType;

constexpr double kInf = std::numeric_limits<double>::infinity();

testing::Tensor Cast(const testing::Tensor& x, const std::string& type) {
  return RunOne("cast", {x}, A({{"type", type}}));
}

TEST(Cast, FloatToIntegerTruncatesTowardZero) {
  testing::Tensor y =
      Cast(F32({6}, {2.7, -2.7, 0.5, -0.5, 3.5, -0.0}), "int32");
  EXPECT_EQ(y.dtype, DT::kInt32);
  EXPECT_THAT(y.values, ElementsAre(2, -2, 0, 0, 3, 0));
  EXPECT_THAT(Cast(F16({2}, {-7.75, 100.5}), "int64").values,
              ElementsAre(-7, 100));
}

TEST(Cast, FloatToIntegerSaturatesAndMapsNaNToZero) {
  EXPECT_THAT(Cast(F32({5}, {-1, 300, NAN, 255.9, kInf}), "uint8").values,
              ElementsAre(0, 255, 0, 255, 255));
  EXPECT_THAT(
      Cast(F32({4}, {3e9, -3e9, -kInf, 2147483520}), "int32").values,
      ElementsAre(2147483647, -2147483648.0, -2147483648.0, 2147483520));
  EXPECT_THAT(Cast(F32({2}, {-129.5, 127.9}), "int8").values,
              ElementsAre(-128, 127));
  EXPECT_THAT(Cast(F32({2}, {1e19, -1}), "uint32").values,
              ElementsAre(4294967295.0, 0));
  // int4 [-8, 7], uint4 [0, 15].
  EXPECT_THAT(Cast(F32({4}, {9.5, -9.5, 3.9, -8.9}), "int4").values,
              ElementsAre(7, -8, 3, -8));
  EXPECT_THAT(Cast(F16({4}, {-1, 16, 15.9, NAN}), "uint4").values,
              ElementsAre(0, 15, 15, 0));
}

TEST(Cast, IntegerToIntegerWrapsAround) {
  EXPECT_THAT(Cast(Of(DT::kInt32, {3}, {300, -1, 200}), "uint8").values,
              ElementsAre(44, 255, 200));
  EXPECT_THAT(Cast(Of(DT::kInt32, {2}, {200, -129}), "int8").values,
              ElementsAre(-56, 127));
  EXPECT_THAT(Cast(Of(DT::kUint32, {1}, {4294967295.0}), "int32").values,
              ElementsAre(-1));
  EXPECT_THAT(Cast(Of(DT::kInt8, {2}, {-1, -128}), "uint32").values,
              ElementsAre(4294967295.0, 4294967168.0));
  EXPECT_THAT(Cast(Of(DT::kInt64, {1}, {-1}), "uint64").values,
              ElementsAre(18446744073709551615.0));
  // The low 4 bits, sign-extended for int4.
  EXPECT_THAT(Cast(Of(DT::kInt32, {4}, {9, -9, 15, 7}), "int4").values,
              ElementsAre(-7, 7, -1, 7));
  EXPECT_THAT(Cast(Of(DT::kInt32, {3}, {17, -1, 8}), "uint4").values,
              ElementsAre(1, 15, 8));
  EXPECT_THAT(Cast(Of(DT::kInt4, {3}, {-8, 7, -1}), "uint4").values,
              ElementsAre(8, 7, 15));
  EXPECT_THAT(Cast(Of(DT::kUint4, {2}, {15, 8}), "int4").values,
              ElementsAre(-1, -8));
  EXPECT_THAT(Cast(Of(DT::kInt4, {2}, {-8, 7}), "int64").values,
              ElementsAre(-8, 7));
}

TEST(Cast, ToFloat16RoundsToNearestEven) {
  // Spacing 2 above 2048: 2049 ties to 2048, 2051 ties to 2052.
  EXPECT_THAT(Cast(F32({6}, {2049, 2051, 65519, 65520, 1.00048828125, -1e-8}),
                   "float16")
                  .values,
              ElementsAre(2048, 2052, 65504, kInf, 1, -0.0));
  EXPECT_THAT(
      Cast(Of(DT::kInt32, {3}, {2049, 70000, -70000}), "float16").values,
      ElementsAre(2048, kInf, -kInf));
  EXPECT_THAT(Cast(Of(DT::kUint8, {2}, {255, 0}), "float16").values,
              ElementsAre(255, 0));
  EXPECT_THAT(Cast(F32({1}, {NAN}), "float16").values, ElementsAre(IsNan()));
}

TEST(Cast, ToFloat32) {
  EXPECT_THAT(
      Cast(Of(DT::kInt64, {2}, {16777217, -16777219}), "float32").values,
      ElementsAre(16777216, -16777220));
  EXPECT_THAT(Cast(Of(DT::kUint32, {1}, {4294967295.0}), "float32").values,
              ElementsAre(4294967296.0));
  EXPECT_THAT(Cast(F16({3}, {0.1, -65504, 6e-8}), "float32").values,
              ElementsAre(0.0999755859375, -65504, 5.9604644775390625e-08));
  EXPECT_THAT(Cast(Of(DT::kInt4, {2}, {-8, 7}), "float32").values,
              ElementsAre(-8, 7));
}

TEST(QuantizeLinear, RoundsEvenAndSaturatesInt4) {
  testing::Tensor y =
      RunOne("quantizeLinear", {F32({6}, {100, -100, 2.5, 3.5, -2.5, NAN}),
                                F32({}, {1}), Of(DT::kInt4, {}, {0})});
  EXPECT_EQ(y.dtype, DT::kInt4);
  EXPECT_THAT(y.values, ElementsAre(7, -8, 2, 4, -2, 0));
  // With a zero point of 3 and scale 0.5: x / 0.5 + 3, into [0, 15].
  EXPECT_THAT(
      RunOne("quantizeLinear", {F32({4}, {-1, 1, 5, 6.25}), F32({1}, {0.5}),
                                Of(DT::kUint4, {1}, {3})})
          .values,
      ElementsAre(1, 5, 13, 15));
}

TEST(QuantizeLinear, SaturatesEightAndThirtyTwoBitTypes) {
  EXPECT_THAT(
      RunOne("quantizeLinear", {F32({3}, {-1000, 1000, 1.5}), F32({}, {1}),
                                Of(DT::kUint8, {}, {128})})
          .values,
      ElementsAre(0, 255, 130));
  EXPECT_THAT(RunOne("quantizeLinear", {F32({2}, {1e10, -1e10}), F32({}, {1}),
                                        Of(DT::kInt32, {}, {5})})
                  .values,
              ElementsAre(2147483647, -2147483648.0));
  EXPECT_THAT(RunOne("quantizeLinear", {F32({2}, {-5, 4e9}), F32({}, {1}),
                                        Of(DT::kUint32, {}, {2})})
                  .values,
              ElementsAre(0, 4000000002.0));
}

TEST(QuantizeLinear, BroadcastsBlockwise) {
  // Blocks of 2 along the only axis: scales 1 and 10.
  EXPECT_THAT(
      RunOne("quantizeLinear", {F32({4}, {1, 2, 30, 40}), F32({2}, {1, 10}),
                                Of(DT::kInt8, {2}, {0, -1})})
          .values,
      ElementsAre(1, 2, 2, 3));
  // [2, 4] input, [1, 2] scale: blocks of 2 x 2 (both rows share the one
  // row of scales, each scale covers 2 columns).
  EXPECT_THAT(RunOne("quantizeLinear",
                     {F32({2, 4}, {2, 4, 6, 8, 10, 12, 14, 16}),
                      F32({1, 2}, {2, 4}), Of(DT::kUint8, {1, 2}, {0, 10})})
                  .values,
              ElementsAre(1, 2, 12, 12, 5, 6, 14, 14));
  // A [4, 2] input with [2, 1] scale: rows in blocks of 2, all columns.
  EXPECT_THAT(RunOne("quantizeLinear",
                     {F32({4, 2}, {1, 2, 3, 4, 10, 20, 30, 40}),
                      F32({2, 1}, {1, 10}), Of(DT::kInt8, {2, 1}, {0, 0})})
                  .values,
              ElementsAre(1, 2, 3, 4, 1, 2, 3, 4));
}

TEST(QuantizeLinear, Float16Input) {
  EXPECT_THAT(RunOne("quantizeLinear", {F16({3}, {1.5, -1.5, 0.25}),
                                        F16({}, {0.5}), Of(DT::kInt8, {}, {1})})
                  .values,
              ElementsAre(4, -2, 1));  // 0.25 / 0.5 = 0.5 rounds to 0
}

TEST(DequantizeLinear, SubtractsZeroPointAndScales) {
  testing::Tensor y = RunOne("dequantizeLinear",
                             {Of(DT::kInt4, {4}, {-8, 7, 0, -1}),
                              F32({2}, {0.5, 2}), Of(DT::kInt4, {2}, {-1, 3})});
  EXPECT_EQ(y.dtype, DT::kFloat32);
  EXPECT_THAT(y.values, ElementsAre(-3.5, 4, -6, -8));
  EXPECT_THAT(RunOne("dequantizeLinear",
                     {Of(DT::kUint4, {2, 2}, {15, 0, 1, 2}),
                      F16({2, 1}, {0.25, -1}), Of(DT::kUint4, {2, 1}, {1, 2})})
                  .values,
              ElementsAre(3.5, -0.25, 1, 0));
  // The difference is exact in 64 bits before it is scaled.
  EXPECT_THAT(RunOne("dequantizeLinear",
                     {Of(DT::kInt32, {1}, {2147483647}), F32({}, {1}),
                      Of(DT::kInt32, {}, {-2147483648.0})})
                  .values,
              ElementsAre(4294967296.0));
  EXPECT_THAT(
      RunOne("dequantizeLinear", {Of(DT::kUint8, {3}, {0, 128, 255}),
                                  F32({}, {0.5}), Of(DT::kUint8, {}, {128})})
          .values,
      ElementsAre(-64, 0, 63.5));
}

}  // namespace
}  // namespace webnnm::backends::cpu
