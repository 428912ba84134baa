// CPU kernels of the reductions, argMin/argMax and cumulativeSum, on cases
// worked out by hand.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::F16;
using testing::F32;
using ::testing::IsEmpty;
using ::testing::IsNan;
using testing::Of;
using testing::RunOne;
using testing::RunOp;
using Ints = std::vector<int64_t>;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Reduce, SumOverEachAxisSet) {
  // [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]
  auto x = F32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  testing::Tensor middle = RunOne("reduceSum", {x}, A({{"axes", Ints{1}}}));
  EXPECT_THAT(middle.shape, ElementsAre(2, 2));
  EXPECT_THAT(middle.values, ElementsAre(9, 12, 27, 30));
  testing::Tensor outer = RunOne("reduceSum", {x}, A({{"axes", Ints{0, 2}}}));
  EXPECT_THAT(outer.shape, ElementsAre(3));
  EXPECT_THAT(outer.values, ElementsAre(18, 26, 34));
  testing::Tensor last = RunOne("reduceSum", {x}, A({{"axes", Ints{2}}}));
  EXPECT_THAT(last.values, ElementsAre(3, 7, 11, 15, 19, 23));
  testing::Tensor all = RunOne("reduceSum", {x});
  EXPECT_THAT(all.shape, IsEmpty());
  EXPECT_THAT(all.values, ElementsAre(78));
}

TEST(Reduce, KeepDimensions) {
  auto x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  testing::Tensor rows = RunOne(
      "reduceMax", {x}, A({{"axes", Ints{1}}, {"keepDimensions", true}}));
  EXPECT_THAT(rows.shape, ElementsAre(2, 1));
  EXPECT_THAT(rows.values, ElementsAre(3, 6));
  testing::Tensor all =
      RunOne("reduceMean", {x}, A({{"keepDimensions", true}}));
  EXPECT_THAT(all.shape, ElementsAre(1, 1));
  EXPECT_THAT(all.values, ElementsAre(3.5));
}

TEST(Reduce, EmptyAxesReduceEachElementAlone) {
  auto x = F32({3}, {-1.5, 2, 0.25});
  EXPECT_THAT(RunOne("reduceL1", {x}, A({{"axes", Ints{}}})).values,
              ElementsAre(1.5, 2, 0.25));
  EXPECT_THAT(RunOne("reduceSumSquare", {x}, A({{"axes", Ints{}}})).values,
              ElementsAre(2.25, 4, 0.0625));
  EXPECT_THAT(RunOne("reduceMin", {x}, A({{"axes", Ints{}}})).values,
              ElementsAre(-1.5, 2, 0.25));
  testing::Tensor kept = RunOne(
      "reduceMean", {x}, A({{"axes", Ints{}}, {"keepDimensions", true}}));
  EXPECT_THAT(kept.shape, ElementsAre(3));
  EXPECT_THAT(kept.values, ElementsAre(-1.5, 2, 0.25));
  // A 0-D input reduced over all (no) axes.
  EXPECT_THAT(RunOne("reduceL2", {F32({}, {-3})}).values, ElementsAre(3));
}

TEST(Reduce, IntegerSumsAndProductsWrapAround) {
  EXPECT_THAT(
      RunOne("reduceSum", {Of(ir::DType::kInt32, {3}, {2147483647, 1, 1})})
          .values,
      ElementsAre(-2147483647));
  EXPECT_THAT(
      RunOne("reduceProduct", {Of(ir::DType::kUint32, {2}, {65536, 65537})})
          .values,
      ElementsAre(65536));
  // |INT32_MIN| wraps to itself; the sum then wraps again.
  EXPECT_THAT(
      RunOne("reduceL1", {Of(ir::DType::kInt32, {2}, {-2147483648.0, -1})})
          .values,
      ElementsAre(-2147483647));
  EXPECT_THAT(
      RunOne("reduceSumSquare", {Of(ir::DType::kInt32, {2}, {65536, 3})})
          .values,
      ElementsAre(9));
  EXPECT_THAT(RunOne("reduceSum", {Of(ir::DType::kUint64, {2}, {1, 2})},
                     A({{"axes", Ints{0}}}))
                  .values,
              ElementsAre(3));
}

TEST(Reduce, Float16AccumulatesWideAndRoundsOnce) {
  // Summed in float16 step by step: 2048 + 1 = 2048 (tie to even) twice.
  // Accumulated wide: 2050, which float16 holds exactly.
  EXPECT_THAT(RunOne("reduceSum", {F16({3}, {2048, 1, 1})}).values,
              ElementsAre(2050));
  // The mean of 3 values rounds once: 1/3 -> 0.333251953125.
  EXPECT_THAT(RunOne("reduceMean", {F16({3}, {1, 0, 0})}).values,
              ElementsAre(0.333251953125));
  // Overflow only in the result: 40000 * 2 = 80000 -> infinity.
  EXPECT_THAT(RunOne("reduceProduct", {F16({3}, {40000, 2, 1})}).values,
              ElementsAre(kInf));
}

// Sums over leading axes (a bias gradient: few results, many rows) add
// the rows in order in double, rounded once — exactly this loop — for any
// count of results, one vector's worth or more.
TEST(Reduce, SumOverLeadingAxesAddsRowsInOrder) {
  for (int64_t count : {2, 3, 8, 9}) {
    const int64_t rows = 37;
    std::vector<double> x(rows * count);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(std::sin(i * 0.61) * 1e3 + 1e-3 * i);
    }
    // Column 0: ones, then 2^60 and -2^60 — in order the ones are lost
    // (0), in any other order some are not.
    for (int64_t r = 0; r < rows; ++r) x[r * count] = 1;
    x[(rows - 2) * count] = std::ldexp(1.0, 60);
    x[(rows - 1) * count] = -std::ldexp(1.0, 60);
    const testing::Tensor y =
        RunOne("reduceSum", {F32({rows, count}, x)}, A({{"axes", Ints{0}}}));
    ASSERT_EQ(y.values.size(), static_cast<size_t>(count));
    for (int64_t j = 0; j < count; ++j) {
      double sum = 0;
      for (int64_t r = 0; r < rows; ++r) sum += x[r * count + j];
      EXPECT_EQ(y.values[j], static_cast<float>(sum)) << count << " " << j;
    }
  }
}

TEST(Reduce, LogSumExpIsStable) {
  EXPECT_THAT(RunOne("reduceLogSumExp", {F32({2}, {1000, 1000})}).values,
              ElementsAre(DoubleNear(1000 + std::log(2.0), 1e-3)));
  EXPECT_THAT(RunOne("reduceLogSumExp", {F32({2}, {-1000, -1000})}).values,
              ElementsAre(DoubleNear(-1000 + std::log(2.0), 1e-3)));
  EXPECT_THAT(RunOne("reduceLogSumExp", {F32({2}, {-kInf, -kInf})}).values,
              ElementsAre(-kInf));
  EXPECT_THAT(RunOne("reduceLogSumExp", {F32({2}, {kInf, 1})}).values,
              ElementsAre(kInf));
  EXPECT_THAT(RunOne("reduceLogSumExp", {F16({2, 2}, {0, 0, 1, 1})},
                     A({{"axes", Ints{1}}}))
                  .values,
              ElementsAre(DoubleNear(std::log(2.0), 1e-3),
                          DoubleNear(1 + std::log(2.0), 1e-3)));
}

// A batch of short rows (eight at a time on AVX-512, a partial last block)
// gives each row the same bits as that row alone: large, equal, infinite
// and NaN values included.
TEST(Reduce, LogSumExpOfShortRowsInABatchAsAlone) {
  const int64_t rows = 19, length = 3;
  std::vector<double> x(rows * length);
  for (int64_t i = 0; i < rows * length; ++i) {
    x[i] = std::sin(static_cast<double>(i) * 2.3) * 40;
  }
  x[1 * length + 1] = NAN;
  x[4 * length + 2] = kInf;
  x[6 * length] = -kInf;
  for (int64_t k = 0; k < length; ++k) x[9 * length + k] = -kInf;
  for (int64_t k = 0; k < length; ++k) x[10 * length + k] = 3e38;
  x[12 * length + 1] = kInf;
  x[12 * length + 2] = NAN;
  const ir::Attrs last = A({{"axes", std::vector<int64_t>{1}}});
  const testing::Tensor batch =
      RunOne("reduceLogSumExp", {F32({rows, length}, x)}, last);
  ASSERT_EQ(batch.values.size(), static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row(x.begin() + r * length,
                            x.begin() + (r + 1) * length);
    const double alone =
        RunOne("reduceLogSumExp", {F32({1, length}, row)}, last).values[0];
    EXPECT_TRUE(std::isnan(alone) ? std::isnan(batch.values[r])
                                  : batch.values[r] == alone)
        << "row " << r << ": " << batch.values[r] << " vs " << alone;
  }
}

TEST(Reduce, NormsAndLogSum) {
  EXPECT_THAT(RunOne("reduceL2", {F32({2}, {3, -4})}).values, ElementsAre(5));
  EXPECT_THAT(RunOne("reduceLogSum", {F32({2}, {0.5, 0.5})}).values,
              ElementsAre(0));
  EXPECT_THAT(RunOne("reduceLogSum", {F32({1}, {0})}).values,
              ElementsAre(-kInf));
}

TEST(Reduce, MaxAndMinPropagateNaNAndTakeIntegers) {
  EXPECT_THAT(RunOne("reduceMax", {F32({3}, {1, NAN, 5})}).values,
              ElementsAre(IsNan()));
  EXPECT_THAT(RunOne("reduceMin", {F32({3}, {NAN, 1, -5})}).values,
              ElementsAre(IsNan()));
  EXPECT_THAT(RunOne("reduceMax", {F32({2}, {-kInf, -kInf})}).values,
              ElementsAre(-kInf));
  EXPECT_THAT(
      RunOne("reduceMin", {Of(ir::DType::kInt8, {2, 2}, {-128, 127, 5, 6})},
             A({{"axes", Ints{0}}}))
          .values,
      ElementsAre(-128, 6));
  EXPECT_THAT(
      RunOne("reduceMax", {Of(ir::DType::kUint8, {3}, {0, 255, 7})}).values,
      ElementsAre(255));
  EXPECT_THAT(
      RunOne("reduceMax", {Of(ir::DType::kInt64, {2}, {-5, -9})}).values,
      ElementsAre(-5));
}

TEST(ArgReduce, TiesGiveTheFirstIndex) {
  EXPECT_THAT(
      RunOne("argMax", {F32({5}, {1, 3, 0, 3, 2})}, A({{"axis", 0}})).values,
      ElementsAre(1));
  EXPECT_THAT(
      RunOne("argMin", {F32({5}, {1, 0, 3, 0, 2})}, A({{"axis", 0}})).values,
      ElementsAre(1));
  EXPECT_THAT(
      RunOne("argMax", {F32({3}, {-kInf, -kInf, -kInf})}, A({{"axis", 0}}))
          .values,
      ElementsAre(0));
}

TEST(ArgReduce, NaNWinsAtItsFirstIndex) {
  EXPECT_THAT(
      RunOne("argMax", {F32({4}, {1, NAN, 5, NAN})}, A({{"axis", 0}})).values,
      ElementsAre(1));
  EXPECT_THAT(
      RunOne("argMin", {F32({4}, {1, -7, NAN, NAN})}, A({{"axis", 0}})).values,
      ElementsAre(2));
}

// Many short rows (a classifier's scores: 16 rows at a time on AVX-512, a
// partial last block) give the same indices as the rule: ties the first,
// a NaN over numbers, the first NaN.
TEST(ArgReduce, ManyShortRows) {
  const int64_t rows = 37, length = 5;
  std::vector<double> values(rows * length);
  for (int64_t i = 0; i < rows * length; ++i) {
    values[i] = static_cast<double>((i * i) % 7) - 3;  // ties included
  }
  values[3 * length + 2] = NAN;
  values[20 * length + 1] = NAN;
  values[20 * length + 4] = NAN;
  values[36 * length] = -kInf;
  values[36 * length + 4] = kInf;
  for (const char* op : {"argMax", "argMin"}) {
    const bool max = std::string(op) == "argMax";
    std::vector<double> expected;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t at = 0;
      for (int64_t k = 1; k < length; ++k) {
        double v = values[r * length + k], b = values[r * length + at];
        if ((max ? v > b : v < b) || (std::isnan(v) && !std::isnan(b))) at = k;
      }
      expected.push_back(static_cast<double>(at));
    }
    for (const char* type : {"int32", "int64"}) {
      absl::StatusOr<std::vector<testing::Tensor>> result =
          RunOp(op, {F32({rows, length}, values)},
                A({{"axis", 1}, {"outputDataType", std::string(type)}}));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_THAT((*result)[0].values, ElementsAreArray(expected))
          << op << " " << type;
    }
  }
}

TEST(ArgReduce, MiddleAxisKeepDimensionsAndInt64) {
  // [[[1, 9], [5, 2], [5, 9]], [[0, 0], [-1, 4], [3, 4]]] along axis 1.
  auto x = F32({2, 3, 2}, {1, 9, 5, 2, 5, 9, 0, 0, -1, 4, 3, 4});
  absl::StatusOr<std::vector<testing::Tensor>> max =
      RunOp("argMax", {x},
            A({{"axis", 1},
               {"keepDimensions", true},
               {"outputDataType", std::string("int64")}}));
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ((*max)[0].dtype, ir::DType::kInt64);
  EXPECT_THAT((*max)[0].shape, ElementsAre(2, 1, 2));
  EXPECT_THAT((*max)[0].values, ElementsAre(1, 0, 2, 1));
  testing::Tensor min = RunOne("argMin", {x}, A({{"axis", 1}}));
  EXPECT_EQ(min.dtype, ir::DType::kInt32);
  EXPECT_THAT(min.shape, ElementsAre(2, 2));
  EXPECT_THAT(min.values, ElementsAre(0, 1, 1, 0));
}

TEST(ArgReduce, IntegerAndFloat16Inputs) {
  EXPECT_THAT(
      RunOne("argMax", {Of(ir::DType::kUint8, {2, 2}, {3, 200, 255, 1})},
             A({{"axis", 1}}))
          .values,
      ElementsAre(1, 0));
  EXPECT_THAT(RunOne("argMin", {Of(ir::DType::kInt64, {3}, {4, -2, -2})},
                     A({{"axis", 0}}))
                  .values,
              ElementsAre(1));
  // 2049 and 2048 are the same float16 value: a tie.
  EXPECT_THAT(
      RunOne("argMax", {F16({3}, {2048, 2049, 7})}, A({{"axis", 0}})).values,
      ElementsAre(0));
}

TEST(CumulativeSum, ExclusiveAndReversed) {
  auto x = F32({4}, {1, 2, 3, 4});
  EXPECT_THAT(RunOne("cumulativeSum", {x}, A({{"axis", 0}})).values,
              ElementsAre(1, 3, 6, 10));
  EXPECT_THAT(
      RunOne("cumulativeSum", {x}, A({{"axis", 0}, {"exclusive", true}}))
          .values,
      ElementsAre(0, 1, 3, 6));
  EXPECT_THAT(
      RunOne("cumulativeSum", {x}, A({{"axis", 0}, {"reversed", true}})).values,
      ElementsAre(10, 9, 7, 4));
  EXPECT_THAT(RunOne("cumulativeSum", {x},
                     A({{"axis", 0}, {"exclusive", true}, {"reversed", true}}))
                  .values,
              ElementsAre(9, 7, 4, 0));
}

TEST(CumulativeSum, OuterAxisAndIntegers) {
  EXPECT_THAT(RunOne("cumulativeSum", {F32({3, 2}, {1, 2, 3, 4, 5, 6})},
                     A({{"axis", 0}}))
                  .values,
              ElementsAre(1, 2, 4, 6, 9, 12));
  EXPECT_THAT(
      RunOne("cumulativeSum", {Of(ir::DType::kInt32, {3}, {2147483647, 1, 1})},
             A({{"axis", 0}}))
          .values,
      ElementsAre(2147483647, -2147483648.0, -2147483647));
  EXPECT_THAT(RunOne("cumulativeSum", {Of(ir::DType::kUint32, {2}, {0, 1})},
                     A({{"axis", 0}, {"exclusive", true}}))
                  .values,
              ElementsAre(0, 0));
  // float16 totals are rounded once from the wide running sum.
  EXPECT_THAT(
      RunOne("cumulativeSum", {F16({3}, {2048, 1, 1})}, A({{"axis", 0}}))
          .values,
      ElementsAre(2048, 2048, 2050));
}

}  // namespace
}  // namespace webnnm::backends::cpu
