// Compiling and running graphs on the CPU backend: buffers, reuse, repeated
// runs, and the checks that protect the kernels.
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/cpu/testing/run_op.h"
#include "engine/ir/constant_data.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ir::TensorType F32(std::vector<int64_t> shape) {
  ir::TensorType t;
  t.shape = std::move(shape);
  return t;
}

void Write(Executable& exe, const std::string& name, std::vector<float> v) {
  int i = exe.FindInput(name);
  ASSERT_GE(i, 0);
  ASSERT_EQ(exe.input(i).size(), v.size() * sizeof(float));
  std::memcpy(exe.input(i).data(), v.data(), exe.input(i).size());
}

std::vector<float> Read(const Executable& exe, const std::string& name) {
  int i = exe.FindOutput(name);
  const float* p = reinterpret_cast<const float*>(exe.output(i).data());
  return std::vector<float>(p, p + exe.output(i).size() / sizeof(float));
}

std::unique_ptr<Backend> Cpu() { return *CreateBackend("cpu"); }

// y = relu(x * 2 + 1), as a chain of four operations.
ir::Graph Chain(int64_t n) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({n}));
  auto two = b.Constant("two", F32({}), ir::ScalarData(ir::DType::kFloat32, 2));
  auto one = b.Constant("one", F32({}), ir::ScalarData(ir::DType::kFloat32, 1));
  ir::ValueId v = (*b.Op(ir::OpKind::kMul, {x, *two}))[0];
  v = (*b.Op(ir::OpKind::kAdd, {v, *one}))[0];
  v = (*b.Op(ir::OpKind::kNeg, {v}))[0];
  v = (*b.Op(ir::OpKind::kNeg, {v}))[0];
  v = (*b.Op(ir::OpKind::kRelu, {v}))[0];
  b.Output("y", v);
  return b.Finish();
}

TEST(Executable, RunsManyTimesOnNewInputs) {
  auto exe = Cpu()->Compile(Chain(3), {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  Write(**exe, "x", {1, -2, 0.5});
  ASSERT_TRUE((*exe)->Run().ok());
  EXPECT_THAT(Read(**exe, "y"), ElementsAre(3, 0, 2));
  Write(**exe, "x", {10, 0, -0.25});
  ASSERT_TRUE((*exe)->Run().ok());
  EXPECT_THAT(Read(**exe, "y"), ElementsAre(21, 1, 0.5));
}

TEST(Executable, IntermediatesShareMemory) {
  CompileOptions unfused;  // fused, the chain keeps nothing in memory
  unfused.fusion = false;
  auto exe = Cpu()->Compile(Chain(1000), unfused);
  ASSERT_TRUE(exe.ok()) << exe.status();
  // Three intermediates of 4000 bytes live at most two at a time.
  EXPECT_LE((*exe)->intermediate_bytes(), 2 * 4032u);
}

TEST(Executable, OutputsMayBeInputs) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({2}));
  b.Output("same", x);
  b.Output("negated", (*b.Op(ir::OpKind::kNeg, {x}))[0]);
  auto exe = Cpu()->Compile(b.Finish(), {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  Write(**exe, "x", {1, 2});
  ASSERT_TRUE((*exe)->Run().ok());
  EXPECT_THAT(Read(**exe, "same"), ElementsAre(1, 2));
  EXPECT_THAT(Read(**exe, "negated"), ElementsAre(-1, -2));
}

TEST(Executable, RejectsTypesItsRulesDoNotGive) {
  // A graph edited by hand so that a result claims the wrong shape: the
  // kernels must never see it.
  ir::Graph graph = Chain(4);
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    ir::Node& node = graph.node(id);
    if (node.kind == ir::NodeKind::kOp && node.op->kind == ir::OpKind::kAdd) {
      graph.value(node.outputs[0]).type.shape = {5};
    }
  }
  auto exe = Cpu()->Compile(graph, {});
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(exe.status().message(), HasSubstr("but its rule gives"));
}

TEST(Executable, EnforcesTheConfiguredSizeLimit) {
  CompileOptions options;
  options.limits.max_tensor_bytes = 1000;
  auto exe = Cpu()->Compile(Chain(1000), options);
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(exe.status().message(), HasSubstr("limit of 1000 bytes"));
}

TEST(Executable, RandomNumbersFollowSeedAndStep) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({64}));
  b.Output("u", (*b.Op(ir::OpKind::kRandomUniform, {x}))[0]);
  ir::Graph graph = b.Finish();
  auto first = Cpu()->Compile(graph, {});
  auto second = Cpu()->Compile(graph, {});
  ASSERT_TRUE(first.ok() && second.ok());
  (*first)->SetRandomState(42, 7);
  (*second)->SetRandomState(42, 7);
  ASSERT_TRUE((*first)->Run().ok());
  ASSERT_TRUE((*second)->Run().ok());
  std::vector<float> a = Read(**first, "u"), c = Read(**second, "u");
  EXPECT_EQ(a, c);
  for (float v : a) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  // The next step gives other numbers.
  ASSERT_TRUE((*first)->Run().ok());
  EXPECT_NE(Read(**first, "u"), a);
}

}  // namespace
}  // namespace webnnm::backends::cpu
