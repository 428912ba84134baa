// CPU kernels of gather, gatherElements, gatherND, scatterElements and
// scatterND, on cases worked out by hand, including adversarial indices
// (huge, negative, past either end) that must be clamped, never followed.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::ElementsAre;
using testing::F16;
using testing::F32;
using testing::Of;
using testing::RunOne;
using testing::RunOp;
using testing::Tensor;

using Ints = std::vector<int64_t>;

constexpr ir::DType kIndexTypes[] = {ir::DType::kInt32, ir::DType::kUint32,
                                     ir::DType::kInt64};

Tensor I32(std::vector<int64_t> shape, std::vector<double> values) {
  return Of(ir::DType::kInt32, std::move(shape), std::move(values));
}
Tensor I64(std::vector<int64_t> shape, std::vector<double> values) {
  return Of(ir::DType::kInt64, std::move(shape), std::move(values));
}

TEST(Gather, SlicesAlongAnAxis) {
  // x = [[1, 2, 3], [4, 5, 6]]; indices [[2, 0], [1, 1]] along axis 1.
  Tensor y = RunOne(
      "gather", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), I32({2, 2}, {2, 0, 1, 1})},
      A({{"axis", int64_t{1}}}));
  EXPECT_EQ(y.shape, (Ints{2, 2, 2}));
  EXPECT_THAT(y.values, ElementsAre(3, 1, 2, 2, 6, 4, 5, 5));
  // Axis 0 picks whole rows; a scalar index drops the dimension.
  y = RunOne("gather", {F16({3, 2}, {1, 2, 3, 4, 5, 6}), I32({}, {2})});
  EXPECT_EQ(y.shape, (Ints{2}));
  EXPECT_THAT(y.values, ElementsAre(5, 6));
}

TEST(Gather, EveryIndexType) {
  for (ir::DType t : kIndexTypes) {
    SCOPED_TRACE(ir::DTypeName(t));
    EXPECT_THAT(RunOne("gather", {Of(ir::DType::kInt8, {4}, {10, 20, 30, 40}),
                                  Of(t, {3}, {3, 0, 2})})
                    .values,
                ElementsAre(40, 10, 30));
  }
}

TEST(Gather, AdversarialIndicesAreClamped) {
  const Tensor x = F32({3}, {10, 20, 30});
  // int64: huge both ways, -1 and -3 from the end, -4 and 3 just outside.
  EXPECT_THAT(
      RunOne("gather",
             {x, I64({8}, {1e15, -1e15, -1, -3, 3, -4, 9.2e18, -9.2e18})})
          .values,
      ElementsAre(30, 10, 30, 10, 30, 10, 30, 10));
  // int32 extremes; uint32 near 2^32 (no sign to count from the end).
  EXPECT_THAT(
      RunOne("gather", {x, I32({3}, {2147483647, -2147483648.0, -2})}).values,
      ElementsAre(30, 10, 20));
  EXPECT_THAT(RunOne("gather", {x, Of(ir::DType::kUint32, {2},
                                      {4294967295.0, 2147483648.0})})
                  .values,
              ElementsAre(30, 30));
  // Along an inner axis of a larger tensor.
  EXPECT_THAT(RunOne("gather",
                     {F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                      I64({2}, {-1e18, 1e18})},
                     A({{"axis", int64_t{2}}}))
                  .values,
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(GatherElements, IndicesSmallerThanTheInput) {
  // x[i][j] = 3i + j, shape {3, 3}; indices {2, 2} along axis 1.
  const Tensor x = F32({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  Tensor y = RunOne("gatherElements", {x, I32({2, 2}, {2, 0, 1, -1})},
                    A({{"axis", int64_t{1}}}));
  EXPECT_EQ(y.shape, (Ints{2, 2}));
  EXPECT_THAT(y.values, ElementsAre(2, 0, 4, 5));
  // Along axis 0, one column narrower than the input.
  y = RunOne("gatherElements", {x, I32({2, 2}, {2, 1, 0, -2})});
  EXPECT_THAT(y.values, ElementsAre(6, 4, 0, 4));
}

TEST(GatherElements, AdversarialIndicesAreClamped) {
  const Tensor x = F32({2, 3}, {0, 1, 2, 3, 4, 5});
  for (ir::DType t : kIndexTypes) {
    SCOPED_TRACE(ir::DTypeName(t));
    EXPECT_THAT(RunOne("gatherElements",
                       {x, Of(t, {2, 2}, {2000000000, 3, 0, 2147483647})},
                       A({{"axis", int64_t{1}}}))
                    .values,
                ElementsAre(2, 2, 3, 5));
  }
  EXPECT_THAT(
      RunOne("gatherElements", {x, I64({1, 3}, {-9e18, 9e18, -1})}).values,
      ElementsAre(0, 4, 5));
}

TEST(GatherND, WholeAndPartialCoordinates) {
  const Tensor x = F32({2, 3}, {0, 1, 2, 3, 4, 5});
  // k = 1: rows.
  Tensor y = RunOne("gatherND", {x, I32({2, 1}, {1, -2})});
  EXPECT_EQ(y.shape, (Ints{2, 3}));
  EXPECT_THAT(y.values, ElementsAre(3, 4, 5, 0, 1, 2));
  // k = 2: elements, with out-of-range components clamped one by one.
  y = RunOne("gatherND", {x, I64({4, 2}, {1, 2, -1, -3, 7, -9, -1e18, 1e18})});
  EXPECT_EQ(y.shape, (Ints{4}));
  EXPECT_THAT(y.values, ElementsAre(5, 3, 3, 2));
  // A single coordinate (indices of rank 1) into a rank-3 input.
  y = RunOne("gatherND",
             {Of(ir::DType::kUint8, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
              Of(ir::DType::kUint32, {2}, {4294967295.0, 0})});
  EXPECT_EQ(y.shape, (Ints{2}));
  EXPECT_THAT(y.values, ElementsAre(5, 6));
}

TEST(ScatterElements, WritesUpdatesIntoACopy) {
  // Along axis 1 with indices narrower than the input.
  Tensor y = RunOne("scatterElements",
                    {F32({2, 3}, {0, 0, 0, 0, 0, 0}),
                     I32({2, 2}, {2, 0, 1, -1}), F32({2, 2}, {1, 2, 3, 4})},
                    A({{"axis", int64_t{1}}}));
  EXPECT_THAT(y.values, ElementsAre(2, 0, 1, 0, 3, 4));
  // Along axis 0; the input's other values survive.
  y = RunOne("scatterElements",
             {Of(ir::DType::kInt64, {3, 2}, {9, 9, 9, 9, 9, 9}),
              I32({1, 2}, {2, 0}), Of(ir::DType::kInt64, {1, 2}, {-1, -2})});
  EXPECT_THAT(y.values, ElementsAre(9, -2, 9, 9, -1, 9));
}

TEST(ScatterElements, AdversarialIndicesAreClamped) {
  Tensor y = RunOne("scatterElements",
                    {F32({4}, {0, 0, 0, 0}), I64({3}, {-1e18, 1e18, -2}),
                     F32({3}, {1, 2, 3})});
  EXPECT_THAT(y.values, ElementsAre(1, 0, 3, 2));
  y = RunOne("scatterElements",
             {F32({2, 2}, {0, 0, 0, 0}),
              Of(ir::DType::kUint32, {2, 2}, {4294967295.0, 7, 0, 1}),
              F32({2, 2}, {1, 2, 3, 4})});
  EXPECT_THAT(y.values, ElementsAre(3, 0, 1, 4));
}

TEST(ScatterND, ElementsAndSlabs) {
  // Later updates win where indices repeat after clamping.
  Tensor y =
      RunOne("scatterND", {F32({4}, {0, 0, 0, 0}), I32({3, 1}, {-1, 100, -100}),
                           F32({3}, {1, 2, 3})});
  EXPECT_THAT(y.values, ElementsAre(3, 0, 0, 2));
  y = RunOne("scatterND",
             {Of(ir::DType::kFloat16, {3, 2}, {1, 1, 1, 1, 1, 1}),
              I64({1, 1}, {-2}), Of(ir::DType::kFloat16, {1, 2}, {7, 8})});
  EXPECT_THAT(y.values, ElementsAre(1, 1, 7, 8, 1, 1));
  // Whole coordinates into a matrix, clamped per component.
  y = RunOne("scatterND", {Of(ir::DType::kUint8, {2, 2}, {0, 0, 0, 0}),
                           Of(ir::DType::kUint32, {2, 2},
                              {4294967295.0, 0, 0, 3000000000.0}),
                           Of(ir::DType::kUint8, {2}, {5, 6})});
  EXPECT_THAT(y.values, ElementsAre(0, 6, 5, 0));
}

// Clamping as the kernels define it, for the references below.
int64_t Clamp(double index, int64_t n) {
  int64_t i = static_cast<int64_t>(index);
  if (i < 0) i += n;
  return std::clamp<int64_t>(i, 0, n - 1);
}

TEST(GatherElements, RandomIndicesMatchAReference) {
  // x[a][b][c] = 100a + 10b + c, shape {3, 4, 5}; indices {2, 4, 3} of
  // random values from the whole int64 range and from near the edges.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pick(0, 2);
  std::uniform_real_distribution<double> wide(-9e18, 9e18);
  std::uniform_int_distribution<int> narrow(-12, 12);
  std::vector<double> x;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 5; ++c) x.push_back(100 * a + 10 * b + c);
  for (int64_t axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    const Ints in_shape = {3, 4, 5};
    std::vector<double> indices(2 * 4 * 3);
    for (double& v : indices) {
      v = pick(rng) == 0 ? std::round(wide(rng)) : narrow(rng);
    }
    std::vector<double> expected;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 3; ++c) {
          int64_t at[3] = {a, b, c};
          at[axis] = Clamp(indices[(a * 4 + b) * 3 + c], in_shape[axis]);
          expected.push_back(100 * at[0] + 10 * at[1] + at[2]);
        }
    Tensor y =
        RunOne("gatherElements", {F32(in_shape, x), I64({2, 4, 3}, indices)},
               A({{"axis", axis}}));
    EXPECT_THAT(y.values, ::testing::ElementsAreArray(expected));
    // gather along the same axis with the flattened indices.
    std::vector<double> gathered;
    const Ints shape = {3, 4, 5};
    Ints out = shape;
    out[axis] = static_cast<int64_t>(indices.size());
    for (int a = 0; a < out[0]; ++a)
      for (int b = 0; b < out[1]; ++b)
        for (int c = 0; c < out[2]; ++c) {
          int64_t at[3] = {a, b, c};
          at[axis] = Clamp(indices[at[axis]], shape[axis]);
          gathered.push_back(100 * at[0] + 10 * at[1] + at[2]);
        }
    y = RunOne(
        "gather",
        {F32(shape, x), I64({static_cast<int64_t>(indices.size())}, indices)},
        A({{"axis", axis}}));
    EXPECT_THAT(y.values, ::testing::ElementsAreArray(gathered));
  }
}

TEST(Gather, ConstantIndicesWork) {
  auto y = RunOp("gather", {F32({3}, {1, 2, 3}), I32({2}, {-1, 5})}, {},
                 /*constants=*/true);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT((*y)[0].values, ElementsAre(3, 3));
}

}  // namespace
}  // namespace webnnm::backends::cpu
