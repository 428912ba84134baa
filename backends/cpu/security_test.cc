// The CPU backend's defences against hostile graphs (WebNN issues 928 and
// 949): it re-checks every operation with its rule and the configured limits
// before it allocates anything, so a graph edited after it was built cannot
// make a kernel read or write out of bounds, and index data out of range is
// clamped rather than trusted.
#include <cstring>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/cpu/testing/run_op.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using ::testing::ElementsAre;
using testing::F32;
using ::testing::HasSubstr;
using testing::Of;
using testing::RunOne;
using Ints = std::vector<int64_t>;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

ir::TensorType Type(Ints shape, ir::DType dtype = ir::DType::kFloat32) {
  ir::TensorType t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

// A one-operation graph on inputs of the given types, valid when built.
ir::Graph OneOp(ir::OpKind op, std::vector<ir::TensorType> inputs,
                ir::Attrs attrs) {
  ir::GraphBuilder b;
  std::vector<ir::ValueId> operands;
  for (size_t i = 0; i < inputs.size(); ++i) {
    operands.push_back(b.Input("in" + std::to_string(i), inputs[i]));
  }
  auto results = b.Op(op, operands, std::move(attrs));
  EXPECT_TRUE(results.ok()) << results.status();
  if (results.ok()) b.Output("out", (*results)[0]);
  return b.Finish();
}

// The graph's only operation node.
ir::Node& OpNode(ir::Graph& graph) {
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    if (graph.node(id).kind == ir::NodeKind::kOp) return graph.node(id);
  }
  ADD_FAILURE() << "no operation in the graph";
  return graph.node(0);
}

absl::Status Compile(const ir::Graph& graph, ir::Limits limits = {}) {
  CompileOptions options;
  options.limits = limits;
  return (*CreateBackend("cpu"))->Compile(graph, options).status();
}

// A convolution whose dilations were raised after the graph was built: the
// effective window (3 - 1) * 4 + 1 = 9 no longer fits the 8x8 input.
TEST(Security, ConvolutionWindowMustFitThePaddedInput) {
  ir::Graph graph =
      OneOp(ir::OpKind::kConv2d, {Type({1, 1, 8, 8}), Type({1, 1, 3, 3})}, {});
  ASSERT_TRUE(Compile(graph).ok());
  OpNode(graph).attrs.Set("dilations", Ints{4, 4});
  absl::Status status = Compile(graph);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("effective size 9"));
}

TEST(Security, ConvolutionDilationsThatOverflowAreRejected) {
  ir::Graph graph =
      OneOp(ir::OpKind::kConv2d, {Type({1, 1, 8, 8}), Type({1, 1, 3, 3})}, {});
  OpNode(graph).attrs.Set("dilations", Ints{kInt64Max, 1});
  EXPECT_FALSE(Compile(graph).ok());
  OpNode(graph).attrs.Set("dilations", Ints{1, 1});
  OpNode(graph).attrs.Set("padding", Ints{kInt64Max, kInt64Max, 0, 0});
  EXPECT_FALSE(Compile(graph).ok());
}

TEST(Security, PoolingWindowMustFitThePaddedInput) {
  ir::Graph graph = OneOp(ir::OpKind::kMaxPool2d, {Type({1, 1, 4, 4})},
                          A({{"windowDimensions", Ints{2, 2}}}));
  ASSERT_TRUE(Compile(graph).ok());
  OpNode(graph).attrs.Set("windowDimensions", Ints{5, 5});
  absl::Status status = Compile(graph);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("does not fit"));
  // Strides and dilations are checked the same way.
  OpNode(graph).attrs.Set("windowDimensions", Ints{2, 2});
  OpNode(graph).attrs.Set("dilations", Ints{kInt64Max, 1});
  EXPECT_FALSE(Compile(graph).ok());
  OpNode(graph).attrs.Set("dilations", Ints{1, 1});
  OpNode(graph).attrs.Set("strides", Ints{0, 1});
  EXPECT_FALSE(Compile(graph).ok());
}

TEST(Security, SizesBeyondTheConfiguredLimitAreRejected) {
  // 64 x 64 float32 results are 16384 bytes.
  ir::Graph graph =
      OneOp(ir::OpKind::kMatmul, {Type({64, 8}), Type({8, 64})}, {});
  ir::Limits limits;
  limits.max_tensor_bytes = 16384;
  EXPECT_TRUE(Compile(graph, limits).ok());
  limits.max_tensor_bytes = 16383;
  absl::Status status = Compile(graph, limits);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("16383"));
  limits = {};
  limits.max_dimension = 63;
  EXPECT_FALSE(Compile(graph, limits).ok());
}

TEST(Security, ElementCountsThatOverflowAreRejected) {
  ir::Graph graph = OneOp(ir::OpKind::kRelu, {Type({4, 4})}, {});
  // Edit both the input and the result, so that they still agree.
  for (ir::ValueId v = 0; v < graph.num_values(); ++v) {
    graph.value(v).type.shape = {2147483647, 2147483647, 2147483647};
  }
  absl::Status status = Compile(graph);
  ASSERT_FALSE(status.ok());
}

// WebNN issue 949: the full sequence [steps, directions, batch, hidden] of an
// lstm or gru is checked against the limit even when only the last state is
// returned, since the kernels compute it anyway.
TEST(Security, LstmWholeSequenceMustFitEvenWhenNotReturned) {
  // Last states: [1, 1, 10] = 40 bytes each; the sequence: 100 x 40 bytes.
  ir::Graph graph =
      OneOp(ir::OpKind::kLstm,
            {Type({100, 1, 2}), Type({1, 40, 2}), Type({1, 40, 10})},
            A({{"steps", 100}, {"hiddenSize", 10}}));
  ir::Limits limits;
  limits.max_tensor_bytes = 4000;
  EXPECT_TRUE(Compile(graph, limits).ok());
  limits.max_tensor_bytes = 3999;
  absl::Status status = Compile(graph, limits);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("3999 bytes"));
}

TEST(Security, GruWholeSequenceMustFitEvenWhenNotReturned) {
  // Last state: [1, 1, 2] = 8 bytes; the sequence: [100, 1, 1, 2] = 800.
  ir::Graph graph = OneOp(ir::OpKind::kGru,
                          {Type({100, 1, 1}), Type({1, 6, 1}), Type({1, 6, 2})},
                          A({{"steps", 100}, {"hiddenSize", 2}}));
  ir::Limits limits;
  limits.max_tensor_bytes = 800;
  EXPECT_TRUE(Compile(graph, limits).ok());
  limits.max_tensor_bytes = 799;
  absl::Status status = Compile(graph, limits);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("799 bytes"));
}

TEST(Security, SliceOutsideTheInputIsRejected) {
  ir::Graph graph = OneOp(ir::OpKind::kSlice, {Type({10})},
                          A({{"starts", Ints{2}}, {"sizes", Ints{8}}}));
  ASSERT_TRUE(Compile(graph).ok());
  OpNode(graph).attrs.Set("starts", Ints{3});
  EXPECT_FALSE(Compile(graph).ok());
  OpNode(graph).attrs.Set("starts", Ints{kInt64Max});
  OpNode(graph).attrs.Set("sizes", Ints{kInt64Max});
  EXPECT_FALSE(Compile(graph).ok());
}

TEST(Security, PaddingBeyondTheLimitsIsRejected) {
  ir::Graph graph = OneOp(
      ir::OpKind::kPad, {Type({2, 2})},
      A({{"beginningPadding", Ints{1, 1}}, {"endingPadding", Ints{1, 1}}}));
  ASSERT_TRUE(Compile(graph).ok());
  OpNode(graph).attrs.Set("endingPadding", Ints{kInt64Max, 1});
  EXPECT_FALSE(Compile(graph).ok());
}

// Index data is only known when the graph runs: gathers and scatters clamp
// it (negative indices count from the end) instead of trusting it.
TEST(Security, GatherClampsIndicesOutOfRange) {
  testing::Tensor out = RunOne(
      "gather", {F32({4}, {10, 11, 12, 13}),
                 Of(ir::DType::kInt64, {6},
                    {0, -1, 4, 1e18, static_cast<double>(kInt64Min), -5})});
  EXPECT_THAT(out.values, ElementsAre(10, 13, 13, 13, 10, 10));
}

TEST(Security, GatherElementsAndGatherNdClampIndices) {
  EXPECT_THAT(RunOne("gatherElements",
                     {F32({2, 2}, {1, 2, 3, 4}),
                      Of(ir::DType::kInt32, {2, 2}, {7, -9, 1, 0})},
                     A({{"axis", 0}}))
                  .values,
              ElementsAre(3, 2, 3, 2));
  EXPECT_THAT(RunOne("gatherND",
                     {F32({2, 2}, {1, 2, 3, 4}),
                      Of(ir::DType::kInt64, {2, 2}, {100, 100, -100, -100})})
                  .values,
              ElementsAre(4, 1));
}

TEST(Security, ScattersClampIndicesOutOfRange) {
  EXPECT_THAT(RunOne("scatterElements",
                     {F32({4}, {0, 0, 0, 0}),
                      Of(ir::DType::kInt64, {2}, {99, -99}), F32({2}, {5, 6})},
                     A({{"axis", 0}}))
                  .values,
              ElementsAre(6, 0, 0, 5));
  EXPECT_THAT(RunOne("scatterND",
                     {F32({2, 2}, {0, 0, 0, 0}),
                      Of(ir::DType::kInt32, {1, 2}, {2147483647, -2147483647}),
                      F32({1}, {7})})
                  .values,
              ElementsAre(0, 0, 7, 0));
}

TEST(Security, InputBuffersHaveExactlyTheDeclaredSize) {
  ir::Graph graph = OneOp(ir::OpKind::kAdd, {Type({3}), Type({2, 1})}, {});
  auto exe = (*CreateBackend("cpu"))->Compile(graph, {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->input(0).size(), 12u);
  EXPECT_EQ((*exe)->input(1).size(), 8u);
  EXPECT_EQ((*exe)->output(0).size(), 24u);
}

}  // namespace
}  // namespace webnnm::backends::cpu
