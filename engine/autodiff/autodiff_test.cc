#include "engine/autodiff/autodiff.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "engine/ir/graph_builder.h"
#include "engine/ir/op_def.h"

namespace webnnm::autodiff {
namespace {

using ir::DType;
using ir::OpKind;
using ir::TensorType;
using ir::ValueId;

TensorType F32(std::vector<int64_t> shape) {
  return TensorType{.dtype = DType::kFloat32, .shape = std::move(shape)};
}

OpKind ProducerKind(const ir::Graph& graph, ValueId v) {
  const ir::Node& node = graph.node(graph.value(v).producer);
  return node.kind == ir::NodeKind::kOp ? node.op->kind : OpKind::kCount;
}

TEST(Differentiate, SumsTheGradientsOfEveryConsumer) {
  ir::GraphBuilder b;
  ValueId x = b.Input("x", F32({2, 3}));
  ValueId y = *b.Op(OpKind::kRelu, {x}).value().begin();
  ValueId z = b.Op(OpKind::kAdd, {y, x}).value()[0];  // x used twice
  ValueId seed = b.Input("seed", F32({2, 3}));
  ir::Graph graph = b.Finish();
  std::vector<Seed> seeds = {{z, seed}};
  std::vector<ValueId> wrt = {x};
  auto grads = Differentiate(graph, {}, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  ASSERT_EQ(grads->size(), 1u);
  // dz/dx = relu'(x) + 1: two contributions, summed by an add.
  EXPECT_EQ(ProducerKind(graph, (*grads)[0]), OpKind::kAdd);
  EXPECT_EQ(graph.value((*grads)[0]).type.shape, (std::vector<int64_t>{2, 3}));
}

TEST(Differentiate, ReducesBroadcastGradientsToTheOperandShape) {
  ir::GraphBuilder b;
  ValueId x = b.Input("x", F32({4, 3}));
  ValueId bias = b.Input("b", F32({3}));
  ValueId y = b.Op(OpKind::kAdd, {x, bias}).value()[0];
  ValueId seed = b.Input("seed", F32({4, 3}));
  ir::Graph graph = b.Finish();
  std::vector<Seed> seeds = {{y, seed}};
  std::vector<ValueId> wrt = {bias};
  auto grads = Differentiate(graph, {}, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ(graph.value((*grads)[0]).type.shape, (std::vector<int64_t>{3}));
}

TEST(Differentiate, NoGradientFlowsIntoIntegers) {
  ir::GraphBuilder b;
  ValueId x = b.Input("x", F32({4, 3}));
  ValueId indices =
      b.Input("i", TensorType{.dtype = DType::kInt32, .shape = {2}});
  ir::Attrs attrs;
  attrs.Set("axis", int64_t{0});
  ValueId y = b.Op(OpKind::kGather, {x, indices}, attrs).value()[0];
  ValueId seed = b.Input("seed", F32({2, 3}));
  ir::Graph graph = b.Finish();
  int nodes_before = graph.num_nodes();
  std::vector<Seed> seeds = {{y, seed}};
  std::vector<ValueId> wrt = {indices};
  auto grads = Differentiate(graph, {}, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  // Only the zero tensor (a scalar expanded) was added.
  EXPECT_EQ(ProducerKind(graph, (*grads)[0]), OpKind::kExpand);
  EXPECT_EQ(graph.num_nodes(), nodes_before + 2);
}

TEST(Differentiate, UnreachedValuesGetZeros) {
  ir::GraphBuilder b;
  ValueId x = b.Input("x", F32({2}));
  ValueId other = b.Input("other", F32({2}));
  ValueId y = b.Op(OpKind::kExp, {x}).value()[0];
  ValueId seed = b.Input("seed", F32({2}));
  ir::Graph graph = b.Finish();
  std::vector<Seed> seeds = {{y, seed}};
  std::vector<ValueId> wrt = {other, x};
  auto grads = Differentiate(graph, {}, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ(ProducerKind(graph, (*grads)[0]), OpKind::kExpand);
  EXPECT_EQ(ProducerKind(graph, (*grads)[1]), OpKind::kMul);  // dy * y
}

TEST(Differentiate, RejectsASeedOfTheWrongType) {
  ir::GraphBuilder b;
  ValueId x = b.Input("x", F32({2}));
  ValueId y = b.Op(OpKind::kExp, {x}).value()[0];
  ValueId seed = b.Input("seed", F32({3}));
  ir::Graph graph = b.Finish();
  std::vector<Seed> seeds = {{y, seed}};
  std::vector<ValueId> wrt = {x};
  auto grads = Differentiate(graph, {}, seeds, wrt);
  EXPECT_EQ(grads.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Differentiate, UnrollsRecurrentOperations) {
  ir::GraphBuilder b;
  ValueId x = b.Input("x", F32({3, 1, 2}));  // steps, batch, input
  ValueId w = b.Input("w", F32({1, 6, 2}));
  ValueId r = b.Input("r", F32({1, 6, 2}));
  ir::Attrs attrs;
  attrs.Set("steps", int64_t{3});
  attrs.Set("hiddenSize", int64_t{2});
  ValueId h = b.Op(OpKind::kGru, {x, w, r}, attrs).value()[0];
  ValueId seed = b.Input("seed", F32({1, 1, 2}));
  ir::Graph graph = b.Finish();
  std::vector<Seed> seeds = {{h, seed}};
  std::vector<ValueId> wrt = {w};
  auto grads = Differentiate(graph, {}, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  for (const ir::Node& node : graph.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kOp) {
      EXPECT_NE(node.op->kind, OpKind::kGru) << "gru was not unrolled";
    }
  }
  EXPECT_EQ(graph.value((*grads)[0]).type.shape,
            (std::vector<int64_t>{1, 6, 2}));
}

TEST(Differentiate, EveryFloatOperationHasARule) {
  // Operations with a floating-point result either have a gradient rule,
  // are unrolled, or are high-level (decomposed before any graph is
  // differentiated) or random.
  for (const ir::OpDef* op : ir::AllOps()) {
    if (op->gradient != nullptr || op->unroll != nullptr) continue;
    if (op->category == ir::OpCategory::kHighLevel ||
        op->category == ir::OpCategory::kInternal ||
        op->category == ir::OpCategory::kComparison ||
        op->category == ir::OpCategory::kLogical) {
      continue;
    }
    static const std::set<std::string> integer_results = {"argMax", "argMin",
                                                          "quantizeLinear"};
    EXPECT_TRUE(integer_results.count(op->name)) << op->name << " has no rule";
  }
}

}  // namespace
}  // namespace webnnm::autodiff
