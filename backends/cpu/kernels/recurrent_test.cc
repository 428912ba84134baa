// CPU kernels of gru, gruCell, lstm and lstmCell, on cases worked out by
// hand: with relu activations and chosen weights the steps reduce to short
// sums; with the default activations the expected values follow the
// formulas of the WebNN specification, evaluated in double.
#include <cmath>
#include <optional>

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
using testing::RunOp;
using testing::Tensor;

using Ints = std::vector<int64_t>;
using Strings = std::vector<std::string>;
constexpr auto kNone = std::nullopt;

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(GruCell, DefaultActivationsResetAfter) {
  // batch 1, input 1, hidden 1; rows z, r, n.
  const double x = 0.5, h = 1;
  auto y = RunOp("gruCell",
                 {F32({1, 1}, {x}), F32({3, 1}, {0.1, 0.2, 0.3}),
                  F32({3, 1}, {0.4, 0.5, 0.6}), F32({1, 1}, {h}),
                  F32({3}, {0.01, 0.02, 0.03}), F32({3}, {0.04, 0.05, 0.06})},
                 A({{"hiddenSize", int64_t{1}}}));
  ASSERT_TRUE(y.ok()) << y.status();
  const double z = Sigmoid(0.01 + 0.04 + 0.1 * x + 0.4 * h);
  const double r = Sigmoid(0.02 + 0.05 + 0.2 * x + 0.5 * h);
  const double n = std::tanh(0.03 + 0.3 * x + r * (0.06 + 0.6 * h));
  EXPECT_THAT((*y)[0].values,
              ElementsAre(DoubleNear(z * h + (1 - z) * n, 1e-6)));
}

TEST(GruCell, ResetBeforeWithRznLayout) {
  // The same cell with resetAfter false, its rows given in r, z, n order.
  const double x = 0.5, h = 1;
  auto y = RunOp("gruCell",
                 {F32({1, 1}, {x}), F32({3, 1}, {0.2, 0.1, 0.3}),
                  F32({3, 1}, {0.5, 0.4, 0.6}), F32({1, 1}, {h}),
                  F32({3}, {0.02, 0.01, 0.03}), F32({3}, {0.05, 0.04, 0.06})},
                 A({{"hiddenSize", int64_t{1}},
                    {"resetAfter", false},
                    {"layout", std::string("rzn")}}));
  ASSERT_TRUE(y.ok()) << y.status();
  const double z = Sigmoid(0.01 + 0.04 + 0.1 * x + 0.4 * h);
  const double r = Sigmoid(0.02 + 0.05 + 0.2 * x + 0.5 * h);
  const double n = std::tanh(0.03 + 0.06 + 0.3 * x + 0.6 * (r * h));
  EXPECT_THAT((*y)[0].values,
              ElementsAre(DoubleNear(z * h + (1 - z) * n, 1e-6)));
}

TEST(GruCell, WeightRowsAreGateOutputs) {
  // hidden 2, input 3, batch 2, relu. z = 0 (zero rows), r = 1 (bias), so
  // h' = n = relu(W_n x + R_n h) with W_n = [[1 2 3] [4 5 6]] and
  // R_n = [[0 1] [2 0]]:
  //   x = (1 0 -1), h = (3 5):  W_n x = (-2 -2), R_n h = (5 6) -> (3 4)
  //   x = (0 1 0), h = (-1 1):  W_n x = (2 5),  R_n h = (1 -2) -> (3 3)
  Tensor weight = F32({6, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                               0, 0, 0, 1, 2, 3, 4, 5, 6});
  Tensor recurrent = F32({6, 2}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0});
  for (bool reset_after : {true, false}) {
    auto y =
        RunOp("gruCell",
              {F32({2, 3}, {1, 0, -1, 0, 1, 0}), weight, recurrent,
               F32({2, 2}, {3, 5, -1, 1}), F32({6}, {0, 0, 1, 1, 0, 0}), kNone},
              A({{"hiddenSize", int64_t{2}},
                 {"resetAfter", reset_after},
                 {"activations", Strings{"relu", "relu"}}}));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_THAT((*y)[0].values, ElementsAre(3, 4, 3, 3)) << reset_after;
  }
}

// hidden 1, input 1, relu: z = 0.5 and r = 1 (biases), n = relu(x - h), so
// h' = 0.5 h + 0.5 relu(x - h). Over x = (2, 6):
//   forward:  h = 1, then 0.5 + 0.5 * 5 = 3
//   backward: h = 3 (x = 6), then 1.5 + 0 = 1.5 (x = 2)
Tensor GruInput() { return F32({2, 1, 1}, {2, 6}); }
std::vector<std::optional<Tensor>> GruOperands(int64_t directions) {
  std::vector<double> w, r, b;
  for (int64_t d = 0; d < directions; ++d) {
    w.insert(w.end(), {0, 0, 1});
    r.insert(r.end(), {0, 0, -1});
    b.insert(b.end(), {0.5, 1, 0});
  }
  return {GruInput(), F32({directions, 3, 1}, w), F32({directions, 3, 1}, r),
          F32({directions, 3}, b)};
}

TEST(Gru, ForwardAndBackward) {
  auto forward = RunOp("gru", GruOperands(1),
                       A({{"steps", int64_t{2}},
                          {"hiddenSize", int64_t{1}},
                          {"returnSequence", true},
                          {"activations", Strings{"relu", "relu"}}}));
  ASSERT_TRUE(forward.ok()) << forward.status();
  ASSERT_EQ(forward->size(), 2u);
  EXPECT_THAT((*forward)[0].values, ElementsAre(3));
  EXPECT_THAT((*forward)[1].values, ElementsAre(1, 3));

  auto backward = RunOp("gru", GruOperands(1),
                        A({{"steps", int64_t{2}},
                           {"hiddenSize", int64_t{1}},
                           {"returnSequence", true},
                           {"direction", std::string("backward")},
                           {"activations", Strings{"relu", "relu"}}}));
  ASSERT_TRUE(backward.ok()) << backward.status();
  EXPECT_THAT((*backward)[0].values, ElementsAre(1.5));
  // The sequence is in input order: step 0 holds the last state computed.
  EXPECT_THAT((*backward)[1].values, ElementsAre(1.5, 3));
}

TEST(Gru, BothDirectionsAndInitialState) {
  auto both = RunOp("gru", GruOperands(2),
                    A({{"steps", int64_t{2}},
                       {"hiddenSize", int64_t{1}},
                       {"returnSequence", true},
                       {"direction", std::string("both")},
                       {"activations", Strings{"relu", "relu"}}}));
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ((*both)[0].shape, (Ints{2, 1, 1}));
  EXPECT_THAT((*both)[0].values, ElementsAre(3, 1.5));
  EXPECT_EQ((*both)[1].shape, (Ints{2, 2, 1, 1}));
  EXPECT_THAT((*both)[1].values, ElementsAre(1, 1.5, 3, 3));

  // Starting from h = 4: forward h = 2 + 0 = 2, then 1 + 2 = 3.
  std::vector<std::optional<Tensor>> operands = GruOperands(1);
  operands.push_back(kNone);  // recurrentBias
  operands.push_back(F32({1, 1, 1}, {4}));
  auto y = RunOp("gru", operands,
                 A({{"steps", int64_t{2}},
                    {"hiddenSize", int64_t{1}},
                    {"activations", Strings{"relu", "relu"}}}));
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  EXPECT_THAT((*y)[0].values, ElementsAre(3));
}

// hidden 1, input 1, relu, x = 1, h = 1, c = 2, peepholes (i, o, f) =
// (0.25, 0.5, 0), no bias:
//   i = relu(1 + 0.5 + 0.25 * 2) = 2     o = relu(2 + 0 + 0.5 * 2) = 3
//   f = relu(0.5 + 0.5 + 0) = 1          g = relu(3 - 1) = 2
//   c' = 1 * 2 + 2 * 2 = 6               h' = 3 * relu(6) = 18
TEST(LstmCell, PeepholesWithBothLayouts) {
  const Strings relu{"relu", "relu", "relu"};
  for (auto dtype : {ir::DType::kFloat32, ir::DType::kFloat16}) {
    auto t = [&](Ints shape, std::vector<double> v) {
      return testing::Of(dtype, std::move(shape), std::move(v));
    };
    // iofg
    auto y = RunOp("lstmCell",
                   {t({1, 1}, {1}), t({4, 1}, {1, 2, 0.5, 3}),
                    t({4, 1}, {0.5, 0, 0.5, -1}), t({1, 1}, {1}),
                    t({1, 1}, {2}), kNone, kNone, t({3}, {0.25, 0.5, 0})},
                   A({{"hiddenSize", int64_t{1}}, {"activations", relu}}));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_THAT((*y)[0].values, ElementsAre(18));
    EXPECT_THAT((*y)[1].values, ElementsAre(6));
    // ifgo: the gate rows move, the peephole weights do not.
    auto z = RunOp("lstmCell",
                   {t({1, 1}, {1}), t({4, 1}, {1, 0.5, 3, 2}),
                    t({4, 1}, {0.5, 0.5, -1, 0}), t({1, 1}, {1}),
                    t({1, 1}, {2}), kNone, kNone, t({3}, {0.25, 0.5, 0})},
                   A({{"hiddenSize", int64_t{1}},
                      {"activations", relu},
                      {"layout", std::string("ifgo")}}));
    ASSERT_TRUE(z.ok()) << z.status();
    EXPECT_THAT((*z)[0].values, ElementsAre(18));
    EXPECT_THAT((*z)[1].values, ElementsAre(6));
  }
}

TEST(LstmCell, DefaultActivations) {
  // x = 1, h = 0.5, c = 0.25, W = (0.1 0.2 0.3 0.4), R = (0.5 0.6 0.7 0.8).
  auto y = RunOp("lstmCell",
                 {F32({1, 1}, {1}), F32({4, 1}, {0.1, 0.2, 0.3, 0.4}),
                  F32({4, 1}, {0.5, 0.6, 0.7, 0.8}), F32({1, 1}, {0.5}),
                  F32({1, 1}, {0.25})},
                 A({{"hiddenSize", int64_t{1}}}));
  ASSERT_TRUE(y.ok()) << y.status();
  const double i = Sigmoid(0.1 + 0.25), o = Sigmoid(0.2 + 0.3),
               f = Sigmoid(0.3 + 0.35), g = std::tanh(0.4 + 0.4);
  const double c = f * 0.25 + i * g;
  EXPECT_THAT((*y)[0].values, ElementsAre(DoubleNear(o * std::tanh(c), 1e-6)));
  EXPECT_THAT((*y)[1].values, ElementsAre(DoubleNear(c, 1e-6)));
}

// hidden 1, input 1, relu: i = o = 1, f = 0.5 (biases), g = relu(x - h), so
// c' = 0.5 c + relu(x - h) and h' = c'. Over x = (2, 6):
//   forward:  c = h = 2, then 1 + 4 = 5
//   backward: c = h = 6 (x = 6), then 3 + 0 = 3 (x = 2)
TEST(Lstm, BackwardAndBoth) {
  auto operands = [](int64_t directions) {
    std::vector<double> w, r, b;
    for (int64_t d = 0; d < directions; ++d) {
      w.insert(w.end(), {0, 0, 0, 1});
      r.insert(r.end(), {0, 0, 0, -1});
      b.insert(b.end(), {1, 1, 0.5, 0});
    }
    return std::vector<std::optional<Tensor>>{
        F32({2, 1, 1}, {2, 6}), F32({directions, 4, 1}, w),
        F32({directions, 4, 1}, r), F32({directions, 4}, b)};
  };
  const Strings relu{"relu", "relu", "relu"};
  auto backward = RunOp("lstm", operands(1),
                        A({{"steps", int64_t{2}},
                           {"hiddenSize", int64_t{1}},
                           {"returnSequence", true},
                           {"direction", std::string("backward")},
                           {"activations", relu}}));
  ASSERT_TRUE(backward.ok()) << backward.status();
  ASSERT_EQ(backward->size(), 3u);
  EXPECT_THAT((*backward)[0].values, ElementsAre(3));
  EXPECT_THAT((*backward)[1].values, ElementsAre(3));
  EXPECT_THAT((*backward)[2].values, ElementsAre(3, 6));

  auto both = RunOp("lstm", operands(2),
                    A({{"steps", int64_t{2}},
                       {"hiddenSize", int64_t{1}},
                       {"returnSequence", true},
                       {"direction", std::string("both")},
                       {"activations", relu}}));
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_THAT((*both)[0].values, ElementsAre(5, 3));
  EXPECT_THAT((*both)[1].values, ElementsAre(5, 3));
  EXPECT_EQ((*both)[2].shape, (Ints{2, 2, 1, 1}));
  EXPECT_THAT((*both)[2].values, ElementsAre(2, 3, 5, 6));
}

TEST(Lstm, Float16StatesAreRoundedEachStep) {
  // One step of x = 1 with g = relu(x) and i = o = f = 1 adds 1 to the cell
  // each step; starting from c = 2048 the float16 cell state cannot hold
  // 2049, so it stays at 2048 (a float32 state would reach 2050).
  auto y = RunOp("lstm",
                 {F16({2, 1, 1}, {1, 1}), F16({1, 4, 1}, {0, 0, 0, 1}),
                  F16({1, 4, 1}, {0, 0, 0, 0}), F16({1, 4}, {1, 1, 1, 0}),
                  kNone, kNone, kNone, F16({1, 1, 1}, {2048})},
                 A({{"steps", int64_t{2}},
                    {"hiddenSize", int64_t{1}},
                    {"activations", Strings{"relu", "relu", "relu"}}}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT((*y)[1].values, ElementsAre(2048));
}

}  // namespace
}  // namespace webnnm::backends::cpu
