// The max-pooling gradient (engine/ops/pool.cc) run on the CPU backend:
// each window's dy goes to its first tap holding the maximum — one tap
// only, even where several tie (a window of zeros after relu) — and rows
// and columns no window reaches get none.
#include <gtest/gtest.h>

#include "engine/autodiff/autodiff.h"
#include "engine/ir/graph_builder.h"
#include "tests/train/run_graph.h"

namespace webnnm::train {
namespace {

ir::TensorType F32(std::vector<int64_t> shape) {
  return ir::TensorType{.dtype = ir::DType::kFloat32,
                        .shape = std::move(shape)};
}

TEST(MaxPoolGradient, TheFirstTiedTapTakesTheWindowsGradient) {
  // x [1, 1, 4, 5], 2x2 windows at strides 2: output [1, 1, 2, 2]; the last
  // column is in no window.
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({1, 1, 4, 5}));
  ir::Attrs attrs;
  attrs.Set("windowDimensions", std::vector<int64_t>{2, 2});
  attrs.Set("strides", std::vector<int64_t>{2, 2});
  ir::ValueId y = (*b.Op(ir::OpKind::kMaxPool2d, {x}, attrs))[0];
  ir::ValueId dy = b.Input("dy", F32({1, 1, 2, 2}));
  ir::Graph graph = b.Finish();
  std::vector<autodiff::Seed> seeds = {{y, dy}};
  std::vector<ir::ValueId> wrt = {x};
  auto grads = autodiff::Differentiate(graph, {}, seeds, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  ir::Node out;
  out.kind = ir::NodeKind::kOutput;
  out.name = "dx";
  out.operands = {(*grads)[0]};
  ir::NodeId id = graph.AddNode(std::move(out), 1);
  graph.value(graph.output(id)).type = graph.value((*grads)[0]).type;
  graph.value(graph.output(id)).typed = true;
  auto runner = testing::GraphRunner::Compile(graph);
  ASSERT_TRUE(runner.ok()) << runner.status();
  // Windows: all zeros (ties everywhere); a tie of 3 at taps 1 and 2; a
  // single maximum at tap 3; a tie of -1 at taps 0 and 3.
  const std::vector<double> xs = {0, 0, 1,  3,  9,  //
                                  0, 0, 3,  2,  9,  //
                                  5, 4, -1, -2, 9,  //
                                  4, 6, -3, -1, 9};
  auto result = runner->Run({{"x", xs}, {"dy", {10, 20, 30, 40}}});
  ASSERT_TRUE(result.ok()) << result.status();
  const std::vector<double> want = {10, 0,  0,  20, 0,  //
                                    0,  0,  0,  0,  0,  //
                                    0,  0,  40, 0,  0,  //
                                    0,  30, 0,  0,  0};
  EXPECT_EQ((*result)["dx"], want);
}

}  // namespace
}  // namespace webnnm::train
