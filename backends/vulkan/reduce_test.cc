// The reductions on Vulkan, both ways of combining a workgroup's shares
// (subgroup operations, and the shared-memory tree with
// WEBNNM_VULKAN_SUBGROUPS=0) and both shapes of work (a workgroup per
// output, an invocation per output), against the CPU backend: float32 and
// 32- and 64-bit integers, long and short reductions, up to rank 8; and the
// scans and arg reductions on integers.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/vulkan/device.h"
#include "engine/ir/graph_builder.h"
#include "engine/ir/op_def.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

struct Case {
  K op;
  ir::DType dtype;
  std::vector<int64_t> shape, axes;
};

// Runs `c` on `backend` with deterministic inputs; returns the output bytes.
std::vector<std::byte> RunCase(Backend& backend, const Case& c) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", ir::TensorType{c.dtype, c.shape});
  ir::Attrs attrs;
  attrs.Set("axes", c.axes);
  absl::StatusOr<std::vector<ir::ValueId>> y = b.Op(c.op, {x}, attrs);
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  b.Output("y", (*y)[0]);
  auto exe = backend.Compile(b.Finish(), CompileOptions{});
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return {};
  std::span<std::byte> in = (*exe)->input(0);
  std::mt19937 rng(42);
  for (size_t i = 0; i < in.size(); i += 4) {
    uint32_t bits;
    if (ir::RuntimeElementSize(c.dtype) == 8) {
      bits = rng();  // both words random: wrapping 64-bit arithmetic
      std::memcpy(in.data() + i, &bits, 4);
      continue;
    }
    if (c.dtype == ir::DType::kFloat32) {
      // Near 1 so that products stay finite; signs for L1 and extremes.
      float v = std::uniform_real_distribution<float>(0.99f, 1.01f)(rng);
      if (c.op != K::kReduceProduct && c.op != K::kReduceLogSum &&
          rng() % 2 == 0) {
        v = -v;
      }
      std::memcpy(&bits, &v, 4);
    } else {
      bits = rng();  // wrapping sums and products
      if (c.dtype == ir::DType::kInt32 && c.op == K::kReduceL1) bits >>= 4;
    }
    std::memcpy(in.data() + i, &bits, 4);
  }
  EXPECT_TRUE((*exe)->Run().ok());
  std::span<const std::byte> out = (*exe)->output(0);
  return {out.begin(), out.end()};
}

class SubgroupVariable {
 public:
  explicit SubgroupVariable(const char* value) {
    setenv("WEBNNM_VULKAN_SUBGROUPS", value, 1);
  }
  ~SubgroupVariable() { unsetenv("WEBNNM_VULKAN_SUBGROUPS"); }
};

TEST(Reductions, BothWaysMatchTheCpu) {
  auto cpu = CreateBackend("cpu");
  ASSERT_TRUE(cpu.ok());
  const std::vector<Case> cases = {
      {K::kReduceSum, ir::DType::kFloat32, {3, 5000}, {1}},
      {K::kReduceMax, ir::DType::kFloat32, {3, 5000}, {1}},
      {K::kReduceMin, ir::DType::kFloat32, {50, 40, 3}, {0, 2}},
      {K::kReduceProduct, ir::DType::kFloat32, {4, 300}, {1}},
      {K::kReduceL1, ir::DType::kFloat32, {300, 7}, {0}},
      {K::kReduceL2, ir::DType::kFloat32, {2000, 9}, {1}},
      {K::kReduceLogSumExp, ir::DType::kFloat32, {2, 3000}, {1}},
      {K::kReduceLogSumExp, ir::DType::kFloat32, {500, 12}, {1}},
      {K::kReduceMean, ir::DType::kFloat32, {7, 9, 11}, {0, 1, 2}},
      {K::kReduceSum, ir::DType::kInt32, {3, 5000}, {1}},
      {K::kReduceProduct, ir::DType::kUint32, {5, 700}, {1}},
      {K::kReduceMax, ir::DType::kInt32, {600, 5}, {0}},
      {K::kReduceMin, ir::DType::kUint32, {6, 50}, {1}},
      {K::kReduceL1, ir::DType::kInt32, {40, 30}, {0, 1}},
      {K::kReduceSumSquare, ir::DType::kUint32, {1000, 3}, {1}},
      {K::kReduceSum, ir::DType::kInt64, {3, 5000}, {1}},
      {K::kReduceProduct, ir::DType::kUint64, {5, 70}, {1}},
      {K::kReduceMax, ir::DType::kInt64, {600, 5}, {0}},
      {K::kReduceMin, ir::DType::kUint64, {6, 50}, {1}},
      {K::kReduceL1, ir::DType::kInt64, {40, 30}, {0, 1}},
      {K::kReduceSumSquare, ir::DType::kInt64, {10, 300}, {1}},
      // Ranks 7 and 8: kept and reduced dimensions interleaved (those of a
      // group merge only where neighbours), long and short reductions.
      {K::kReduceSum,
       ir::DType::kFloat32,
       {2, 3, 2, 3, 2, 3, 2, 3},
       {0, 2, 3, 5, 7}},
      {K::kReduceMax,
       ir::DType::kFloat32,
       {4, 5, 4, 5, 4, 5, 4, 5},
       {1, 3, 5, 7}},
      {K::kReduceMean,
       ir::DType::kFloat32,
       {3, 2, 4, 2, 3, 2, 5},
       {1, 2, 4, 6}},
      {K::kReduceL2,
       ir::DType::kFloat32,
       {2, 3, 2, 3, 2, 3, 2, 3},
       {0, 1, 2, 3, 4, 5, 6, 7}},
      {K::kReduceSum,
       ir::DType::kInt32,
       {4, 5, 4, 5, 4, 5, 4, 5},
       {0, 2, 4, 6}},
      {K::kReduceMin, ir::DType::kInt64, {3, 2, 4, 2, 3, 2, 5}, {0, 3, 5}},
      {K::kReduceSum, ir::DType::kFloat32, {2, 3, 2, 3, 2, 3, 2, 3}, {7}},
  };
  for (const char* subgroups : {"1", "0"}) {
    SCOPED_TRACE(std::string("WEBNNM_VULKAN_SUBGROUPS=") + subgroups);
    SubgroupVariable variable(subgroups);
    auto vulkan = CreateBackend("vulkan");
    ASSERT_TRUE(vulkan.ok()) << vulkan.status();
    if (std::string(subgroups) == "1") {
      auto device = Device::Open();
      ASSERT_TRUE(device.ok());
      std::cout << "subgroup operations: "
                << ((*device)->subgroups() ? "yes" : "no") << ", size "
                << (*device)->subgroup_size() << "\n";
    }
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(ir::GetOp(c.op).name) + " on " +
                   std::string(ir::DTypeName(c.dtype)));
      const std::vector<std::byte> want = RunCase(**cpu, c);
      const std::vector<std::byte> got = RunCase(**vulkan, c);
      ASSERT_EQ(want.size(), got.size());
      for (size_t i = 0; i < want.size(); i += 4) {
        if (c.dtype == ir::DType::kFloat32) {
          float a, v;
          std::memcpy(&a, want.data() + i, 4);
          std::memcpy(&v, got.data() + i, 4);
          EXPECT_NEAR(v, a, 1e-4 * std::max(1.0f, std::abs(a))) << i / 4;
        } else {
          uint32_t a, v;  // each word of 32- and 64-bit integers
          std::memcpy(&a, want.data() + i, 4);
          std::memcpy(&v, got.data() + i, 4);
          EXPECT_EQ(v, a) << "word " << i / 4;
        }
      }
    }
  }
}

// softmax and the normalizations: long rows (a workgroup each, combined
// both ways) and short ones (an invocation each).
TEST(RowOperations, BothWaysMatchTheCpu) {
  struct Row {
    K op;
    std::vector<int64_t> shape;
    ir::Attrs attrs;
  };
  auto attrs = [](const char* name, ir::AttrValue value) {
    ir::Attrs a;
    a.Set(name, std::move(value));
    return a;
  };
  const std::vector<Row> rows = {
      {K::kSoftmax, {3, 3000}, attrs("axis", int64_t{1})},
      {K::kSoftmax, {500, 10}, attrs("axis", int64_t{1})},
      {K::kSoftmax, {4, 300, 5}, attrs("axis", int64_t{1})},
      {K::kLayerNormalization,
       {4, 1000},
       attrs("axes", std::vector<int64_t>{1})},
      {K::kLayerNormalization,
       {300, 32},
       attrs("axes", std::vector<int64_t>{1})},
      {K::kInstanceNormalization, {2, 3, 20, 20}, {}},
      {K::kInstanceNormalization, {2, 5, 4, 4}, {}},
      // Rank 8, axes out of order (scale's order: they do not merge) and
      // interleaved with the kept ones; rank 7 with the default axes.
      {K::kLayerNormalization,
       {2, 3, 2, 3, 2, 3, 2, 3},
       attrs("axes", std::vector<int64_t>{7, 5, 1, 3, 6})},
      {K::kLayerNormalization, {2, 3, 4, 3, 4, 3, 4}, {}},
      {K::kLayerNormalization,
       {2, 3, 2, 3, 2, 3, 20, 30},
       attrs("axes", std::vector<int64_t>{6, 7})},
      {K::kSoftmax, {2, 3, 2, 3, 2, 3, 2, 40}, attrs("axis", int64_t{7})},
  };
  auto cpu = CreateBackend("cpu");
  ASSERT_TRUE(cpu.ok());
  for (const char* subgroups : {"1", "0"}) {
    SCOPED_TRACE(std::string("WEBNNM_VULKAN_SUBGROUPS=") + subgroups);
    SubgroupVariable variable(subgroups);
    auto vulkan = CreateBackend("vulkan");
    ASSERT_TRUE(vulkan.ok()) << vulkan.status();
    for (const Row& r : rows) {
      SCOPED_TRACE(ir::GetOp(r.op).name);
      std::vector<std::vector<float>> results;
      for (Backend* backend : {cpu->get(), vulkan->get()}) {
        ir::GraphBuilder b;
        ir::ValueId x =
            b.Input("x", ir::TensorType{ir::DType::kFloat32, r.shape});
        auto y = b.Op(r.op, {x}, r.attrs);
        ASSERT_TRUE(y.ok()) << y.status();
        b.Output("y", (*y)[0]);
        auto exe = backend->Compile(b.Finish(), CompileOptions{});
        ASSERT_TRUE(exe.ok()) << exe.status();
        std::span<std::byte> in = (*exe)->input(0);
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.5f, 3.0f);
        for (size_t i = 0; i < in.size(); i += 4) {
          float v = normal(rng);
          std::memcpy(in.data() + i, &v, 4);
        }
        ASSERT_TRUE((*exe)->Run().ok());
        std::span<const std::byte> out = (*exe)->output(0);
        results.emplace_back(out.size() / 4);
        std::memcpy(results.back().data(), out.data(), out.size());
      }
      for (size_t i = 0; i < results[0].size(); ++i) {
        ASSERT_NEAR(results[1][i], results[0][i],
                    1e-4 * std::max(1.0f, std::abs(results[0][i])))
            << i;
      }
    }
  }
}

}  // namespace
}  // namespace webnnm::backends::vulkan
