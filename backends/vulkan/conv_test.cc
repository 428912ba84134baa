// Convolutions on Vulkan against the CPU backend: the tiled implicit
// matrix product (16 or more output channels per group) and the direct
// shader (thin groups), conv2d and convTranspose2d, both layouts, groups,
// strides, dilations, padding and bias.
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

struct Case {
  K op;
  std::vector<int64_t> input, filter;
  ir::Attrs attrs;
  int64_t bias = 0;    // bias length, 0 for none
  std::string shader;  // the shader the Vulkan backend must use
};

std::vector<float> RunCase(Backend& backend, const Case& c,
                           std::string* implementation) {
  ir::GraphBuilder b;
  std::vector<ir::ValueId> in = {
      b.Input("x", ir::TensorType{ir::DType::kFloat32, c.input}),
      b.Input("f", ir::TensorType{ir::DType::kFloat32, c.filter})};
  if (c.bias > 0) {
    in.push_back(b.Input("b", ir::TensorType{ir::DType::kFloat32, {c.bias}}));
  }
  auto y = b.Op(c.op, in, c.attrs);
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  b.Output("y", (*y)[0]);
  auto exe = backend.Compile(b.Finish(), CompileOptions{});
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return {};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i < in.size(); ++i) {
    std::span<std::byte> bytes = (*exe)->input(i);
    for (size_t k = 0; k < bytes.size(); k += 4) {
      float v = u(rng);
      std::memcpy(bytes.data() + k, &v, 4);
    }
  }
  EXPECT_TRUE((*exe)->Run().ok());
  if (implementation != nullptr) *implementation = (*exe)->implementations()[0];
  std::span<const std::byte> out = (*exe)->output(0);
  std::vector<float> result(out.size() / 4);
  std::memcpy(result.data(), out.data(), out.size());
  return result;
}

ir::Attrs A(std::initializer_list<std::pair<const char*, ir::AttrValue>> v) {
  ir::Attrs attrs;
  for (const auto& [name, value] : v) attrs.Set(name, value);
  return attrs;
}

TEST(Convolution, TiledAndDirectMatchTheCpu) {
  const std::vector<Case> cases = {
      {K::kConv2d,
       {2, 5, 9, 11},
       {20, 5, 3, 3},
       A({{"padding", std::vector<int64_t>{1, 1, 2, 0}},
          {"strides", std::vector<int64_t>{2, 1}}}),
       20,
       "conv_tiled.comp"},
      {K::kConv2d,
       {1, 12, 7, 9},
       {33, 3, 5, 3},  // nhwc, ohwi, 3 groups
       A({{"inputLayout", std::string("nhwc")},
          {"filterLayout", std::string("ohwi")},
          {"groups", int64_t{3}},
          {"dilations", std::vector<int64_t>{2, 1}},
          {"padding", std::vector<int64_t>{2, 2, 1, 1}}}),
       0,
       "conv.comp"},  // 33 / 3 groups = 11 channels per group: direct
      {K::kConv2d,
       {1, 12, 7, 10},
       {32, 3, 5, 5},
       A({{"inputLayout", std::string("nhwc")},
          {"filterLayout", std::string("ohwi")},
          {"groups", int64_t{2}},
          {"dilations", std::vector<int64_t>{2, 1}},
          {"padding", std::vector<int64_t>{2, 2, 1, 1}}}),
       32,
       "conv_tiled.comp"},
      {K::kConv2d,
       {3, 8, 6, 6},
       {8, 1, 3, 3},  // depthwise: direct
       A({{"groups", int64_t{8}},
          {"padding", std::vector<int64_t>{1, 1, 1, 1}}}),
       8,
       "conv.comp"},
      {K::kConvTranspose2d,
       {2, 6, 5, 4},
       {6, 17, 3, 3},
       A({{"strides", std::vector<int64_t>{2, 2}},
          {"padding", std::vector<int64_t>{1, 0, 0, 1}}}),
       17,
       "conv_tiled.comp"},
  };
  auto cpu = CreateBackend("cpu");
  auto vulkan = CreateBackend("vulkan");
  ASSERT_TRUE(cpu.ok() && vulkan.ok());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const std::vector<float> want = RunCase(**cpu, cases[i], nullptr);
    std::string implementation;
    const std::vector<float> got = RunCase(**vulkan, cases[i], &implementation);
    EXPECT_NE(implementation.find(cases[i].shader), std::string::npos)
        << implementation;
    ASSERT_EQ(want.size(), got.size());
    ASSERT_FALSE(want.empty());
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_NEAR(got[k], want[k], 1e-4f * std::max(1.0f, std::abs(want[k])))
          << k;
    }
  }
}

}  // namespace
}  // namespace webnnm::backends::vulkan
