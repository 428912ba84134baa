// Losses and optimizers, run on the CPU backend against values computed
// here in double.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "engine/autodiff/autodiff.h"
#include "engine/ir/graph_builder.h"
#include "engine/ir/graph_ops.h"
#include "engine/train/loss.h"
#include "engine/train/optimizer.h"
#include "tests/train/run_graph.h"

namespace webnnm::train {
namespace {

using ir::DType;
using ir::TensorType;
using ir::ValueId;
using testing::GraphRunner;
using testing::Values;

TensorType F32(std::vector<int64_t> shape) {
  return TensorType{.dtype = DType::kFloat32, .shape = std::move(shape)};
}

const std::vector<double> kOut = {0.2, 0.7, 0.1, 0.6, 0.3, 0.1};  // [2, 3]
const std::vector<double> kTarget = {0, 1, 0, 1, 0, 0};

// The mean loss of `loss` over the rows whose mask is 1.
double MeanLoss(LossKind loss, const std::vector<double>& out,
                const std::vector<double>& y, const std::vector<double>& mask,
                const LossParams& p = {}) {
  double sum = 0, count = 0;
  for (int r = 0; r < 2; ++r) {
    if (mask[r] == 0) continue;
    double row = 0;
    for (int c = 0; c < 3; ++c) {
      double o = out[3 * r + c], t = y[3 * r + c], e = 0;
      switch (loss) {
        case LossKind::kMeanSquaredError:
          e = (o - t) * (o - t);
          break;
        case LossKind::kMeanAbsoluteError:
          e = std::fabs(o - t);
          break;
        case LossKind::kHuber: {
          double d = std::fabs(o - t);
          e = d <= p.delta ? 0.5 * d * d : p.delta * (d - 0.5 * p.delta);
          break;
        }
        case LossKind::kHinge:
          e = std::max(0.0, 1 - (2 * t - 1) * o);
          break;
        case LossKind::kBinaryCrossEntropy:
          e = -(t * std::log(o) + (1 - t) * std::log(1 - o));
          break;
        case LossKind::kCategoricalCrossEntropy:
          e = -t * std::log(o);
          break;
        case LossKind::kKlDivergence:
          e = t > 0 ? t * (std::log(t) - std::log(o)) : 0;
          break;
        default:
          break;
      }
      row += e;
    }
    if (loss == LossKind::kFocal) {
      double pt = 0;
      for (int c = 0; c < 3; ++c) pt += y[3 * r + c] * out[3 * r + c];
      row = -p.alpha * std::pow(1 - pt, p.gamma) * std::log(pt);
    }
    sum += row;
    count += 1;
  }
  bool per_row = loss == LossKind::kCategoricalCrossEntropy ||
                 loss == LossKind::kKlDivergence || loss == LossKind::kFocal;
  return sum / (per_row ? count : count * 3);
}

absl::StatusOr<Values> RunLoss(LossKind loss, const std::vector<double>& mask,
                               const LossParams& params = {}) {
  ir::GraphBuilder b;
  ValueId out = b.Input("out", F32({2, 3}));
  ValueId target = b.Input("target", F32({2, 3}));
  ValueId m = b.Input("mask", F32({2}));
  ir::Graph graph = b.Finish();
  ir::Limits limits;
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "test");
  LossInputs in{.output = out, .target = target, .mask = m};
  auto value = BuildLoss(ops, loss, params, in);
  if (!value.ok()) return value.status();
  ops.Output("mean", value->mean);
  ops.Output("sum", value->sum);
  ops.Output("count", value->count);
  auto runner = GraphRunner::Compile(graph);
  if (!runner.ok()) return runner.status();
  return runner->Run({{"out", kOut}, {"target", kTarget}, {"mask", mask}});
}

TEST(Loss, EachMatchesItsFormula) {
  for (LossKind loss :
       {LossKind::kMeanSquaredError, LossKind::kMeanAbsoluteError,
        LossKind::kHuber, LossKind::kHinge, LossKind::kBinaryCrossEntropy,
        LossKind::kCategoricalCrossEntropy, LossKind::kKlDivergence,
        LossKind::kFocal}) {
    for (const std::vector<double>& mask :
         {std::vector<double>{1, 1}, std::vector<double>{1, 0}}) {
      auto values = RunLoss(loss, mask);
      ASSERT_TRUE(values.ok()) << LossAbbreviation(loss) << values.status();
      EXPECT_NEAR((*values)["mean"][0], MeanLoss(loss, kOut, kTarget, mask),
                  1e-5)
          << LossAbbreviation(loss) << " mask " << mask[1];
    }
  }
}

TEST(Loss, HuberUsesDelta) {
  LossParams params;
  params.delta = 0.25;
  auto values = RunLoss(LossKind::kHuber, {1, 1}, params);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_NEAR((*values)["mean"][0],
              MeanLoss(LossKind::kHuber, kOut, kTarget, {1, 1}, params), 1e-6);
}

TEST(Loss, SparseEqualsCategoricalWithOneHotTargets) {
  ir::GraphBuilder b;
  ValueId out = b.Input("out", F32({2, 3}));
  ValueId labels =
      b.Input("labels", TensorType{.dtype = DType::kInt32, .shape = {2}});
  ValueId m = b.Input("mask", F32({2}));
  ir::Graph graph = b.Finish();
  ir::Limits limits;
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "test");
  LossInputs in{.output = out, .target = labels, .mask = m};
  auto value = BuildLoss(ops, LossKind::kSparseCategoricalCrossEntropy, {}, in);
  ASSERT_TRUE(value.ok()) << value.status();
  ops.Output("mean", value->mean);
  auto correct =
      BuildCorrectCount(ops, LossKind::kSparseCategoricalCrossEntropy, in);
  ASSERT_TRUE(correct.ok()) << correct.status();
  ops.Output("correct", *correct);
  auto runner = GraphRunner::Compile(graph);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto values =
      runner->Run({{"out", kOut}, {"labels", {1, 0}}, {"mask", {1, 1}}});
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_NEAR(
      (*values)["mean"][0],
      MeanLoss(LossKind::kCategoricalCrossEntropy, kOut, kTarget, {1, 1}),
      1e-6);
  EXPECT_EQ((*values)["correct"][0], 2);  // argmax 1 and 0
}

// Softmax + cross-entropy is differentiated through the logits: the
// gradient of the mean loss is (p - y) / rows.
TEST(Loss, FusedSoftmaxCrossEntropyGradientIsPMinusY) {
  ir::GraphBuilder b;
  ValueId z = b.Input("z", F32({2, 3}));
  ValueId target = b.Input("target", F32({2, 3}));
  ValueId m = b.Input("mask", F32({2}));
  ValueId one = b.Input("one", F32({}));
  ir::Attrs axis;
  axis.Set("axis", int64_t{1});
  ValueId p = b.Op(ir::OpKind::kSoftmax, {z}, axis).value()[0];
  ir::Graph graph = b.Finish();
  ir::Limits limits;
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "test");
  LossInputs in{.output = p,
                .logits = z,
                .activation = OutputActivation::kSoftmax,
                .target = target,
                .mask = m};
  auto value = BuildLoss(ops, LossKind::kCategoricalCrossEntropy, {}, in);
  ASSERT_TRUE(value.ok()) << value.status();
  std::vector<autodiff::Seed> seeds = {{value->mean, one}};
  std::vector<ValueId> wrt = {z};
  auto grads = autodiff::Differentiate(graph, limits, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  ops.Output("grad", (*grads)[0]);
  ops.Output("p", p);
  auto runner = GraphRunner::Compile(graph);
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::vector<double> logits = {1.0, 2.0, -1.0, 0.5, 0.0, 3.0};
  auto values = runner->Run(
      {{"z", logits}, {"target", kTarget}, {"mask", {1, 1}}, {"one", {1}}});
  ASSERT_TRUE(values.ok()) << values.status();
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR((*values)["grad"][i], ((*values)["p"][i] - kTarget[i]) / 2,
                1e-6);
  }
}

TEST(Loss, NamesParse) {
  EXPECT_EQ(ParseLoss("CCE"), LossKind::kCategoricalCrossEntropy);
  EXPECT_EQ(ParseLoss("categoricalCrossEntropyWithLogits"),
            LossKind::kCategoricalCrossEntropyWithLogits);
  EXPECT_EQ(ParseLoss("HUL"), LossKind::kHuber);
  EXPECT_FALSE(ParseLoss("cce").has_value());
}

// One update of each optimizer against ERRATA 16's formulas.
TEST(Optimizer, OneUpdateMatchesTheFormulas) {
  const double w0 = 0.5, m0 = 0.2, g = -0.3, lr = 0.1, lrm = 0.5;
  for (OptimizerKind kind : {OptimizerKind::kLion, OptimizerKind::kRLion,
                             OptimizerKind::kNesterov, OptimizerKind::kSgdm}) {
    OptimizerParams p = DefaultOptimizerParams(kind);
    ir::GraphBuilder b;
    ValueId w = b.Input("w", F32({1}));
    ValueId m = b.Input("m", F32({1}));
    ValueId grad = b.Input("g", F32({1}));
    ValueId rate = b.Input("lr", F32({}));
    ir::Graph graph = b.Finish();
    ir::Limits limits;
    ir::GraphRewriter rewriter(graph, limits);
    ir::GraphOps ops(rewriter, "test");
    auto u = BuildUpdate(ops, kind, p, w, m, grad, UpdateScalars{.lr = rate},
                         lrm, ir::kNoValue);
    ASSERT_TRUE(u.ok()) << u.status();
    ops.Output("w", u->weight);
    ops.Output("m", u->momentum);
    auto runner = GraphRunner::Compile(graph);
    ASSERT_TRUE(runner.ok()) << runner.status();
    auto values =
        runner->Run({{"w", {w0}}, {"m", {m0}}, {"g", {g}}, {"lr", {lr}}});
    ASSERT_TRUE(values.ok()) << values.status();
    double w1 = 0, m1 = 0;
    switch (kind) {
      case OptimizerKind::kLion:
      case OptimizerKind::kRLion: {
        double c = p.beta1 * m0 + (1 - p.beta1) * g;
        double d = kind == OptimizerKind::kLion
                       ? (c > 0 ? 1 : -1)
                       : p.alpha * c / (1 + std::fabs(p.alpha * c));
        w1 = w0 - lr * lrm * (d + p.weight_decay * w0);
        m1 = p.beta2 * m0 + (1 - p.beta2) * g;
        break;
      }
      case OptimizerKind::kNesterov: {
        double gt = g + p.weight_decay * w0;
        m1 = p.momentum * m0 + gt;
        w1 = w0 - lr * lrm * (gt + p.momentum * m1);
        break;
      }
      case OptimizerKind::kSgdm: {
        double gt = g + p.weight_decay * w0;
        m1 = p.momentum * m0 + gt;
        w1 = w0 - lr * lrm * m1;
        break;
      }
      default:
        break;
    }
    EXPECT_NEAR((*values)["w"][0], w1, 1e-6) << OptimizerName(kind);
    EXPECT_NEAR((*values)["m"][0], m1, 1e-6) << OptimizerName(kind);
  }
}

TEST(Optimizer, DefaultsAreErrata16) {
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kLion).lr, 1e-4);
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kRLion).lr, 5e-4);
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kNesterov).lr, 0.01);
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kSgdm).lr, 1e-3);
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kSgdm).weight_decay, 1e-4);
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kRLion).alpha, 10);
}

}  // namespace
}  // namespace webnnm::train
