// Post-op fusion (fusion.h): which chains fuse, that fused and unfused
// executables compute the same values, and that buffers stay apart.
#include "backends/cpu/fusion.h"

#include <cmath>
#include <cstring>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends::cpu {
namespace {

using ::testing::ElementsAre;
using Ints = std::vector<int64_t>;

ir::TensorType F32(Ints shape) { return {ir::DType::kFloat32, shape}; }

// A graph under construction, with deterministic data for every input.
struct Net {
  ir::GraphBuilder b;
  std::map<std::string, std::vector<float>> data;

  ir::ValueId In(const std::string& name, Ints shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float>& v = data[name];
    uint32_t state = static_cast<uint32_t>(name.size() * 7919 + n);
    for (int64_t i = 0; i < n; ++i) {
      state = state * 1664525u + 1013904223u;
      v.push_back(static_cast<float>(state >> 8) / 16777216.0f * 2 - 1);
    }
    return b.Input(name, F32(shape));
  }
  ir::ValueId Op(const char* op, std::vector<ir::ValueId> operands,
                 const ir::Attrs& attrs = {}) {
    auto r = b.Op(ir::FindOp(op)->kind, operands, attrs);
    EXPECT_TRUE(r.ok()) << op << ": " << r.status();
    return r.ok() ? r->front() : ir::kNoValue;
  }
};

struct Result {
  std::vector<std::string> implementations;
  std::vector<std::vector<float>> outputs;
};

Result Run(Net& net, bool reference) {
  ir::Graph graph = net.b.Finish();
  auto backend = CreateBackend("cpu");
  CompileOptions options;
  options.reference_kernels = reference;
  options.library_minimum_elements = 0;  // oneDNN (and fusion) at any size
  auto exe = (*backend)->Compile(graph, options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  Result r;
  if (!exe.ok()) return r;
  for (const auto& [name, values] : net.data) {
    int i = (*exe)->FindInput(name);
    EXPECT_GE(i, 0) << name;
    std::memcpy((*exe)->input(i).data(), values.data(),
                values.size() * sizeof(float));
  }
  EXPECT_TRUE((*exe)->Run().ok());
  r.implementations = (*exe)->implementations();
  for (size_t i = 0; i < (*exe)->outputs().size(); ++i) {
    std::span<const std::byte> bytes = (*exe)->output(i);
    std::vector<float> v(bytes.size() / sizeof(float));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    r.outputs.push_back(std::move(v));
  }
  return r;
}

// Builds the network twice (fused and with reference kernels), checks the
// fused kernels' names and that the outputs agree.
template <typename Build>
std::vector<std::string> FusedAndChecked(Build build) {
  Net fast, plain;
  build(fast);
  build(plain);
  Result a = Run(fast, false), b = Run(plain, true);
  EXPECT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t o = 0; o < a.outputs.size() && o < b.outputs.size(); ++o) {
    EXPECT_EQ(a.outputs[o].size(), b.outputs[o].size());
    if (a.outputs[o].size() != b.outputs[o].size()) continue;
    for (size_t i = 0; i < a.outputs[o].size(); ++i) {
      EXPECT_NEAR(a.outputs[o][i], b.outputs[o][i],
                  1e-5 * std::max(1.0f, std::fabs(b.outputs[o][i])))
          << "output " << o << " element " << i;
    }
  }
  return a.implementations;
}

TEST(Fusion, DenseLayerFusesBiasAndActivation) {
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {8, 16}), w = n.In("w", {16, 32});
    ir::ValueId b = n.In("b", {32});
    n.b.Output("y", n.Op("relu", {n.Op("add", {n.Op("matmul", {x, w}), b})}));
  });
  EXPECT_THAT(names, ElementsAre("matmul+add+relu: oneDNN matmul"));
}

TEST(Fusion, BiasOnTheLeftAndLongChains) {
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {2, 4, 8}), w = n.In("w", {8, 8});
    ir::ValueId b = n.In("b", {8}), s = n.In("s", {4, 1});
    ir::ValueId y = n.Op("add", {b, n.Op("matmul", {x, w})});
    y = n.Op("mul", {y, s});
    y = n.Op("tanh", {y});
    y = n.Op("div", {y, s});
    y = n.Op("sigmoid", {y});  // the fifth link: a kernel of its own
    n.b.Output("y", y);
  });
  EXPECT_THAT(names, ElementsAre("matmul+add+mul+tanh+div: oneDNN matmul",
                                 ::testing::StartsWith("sigmoid: oneDNN")));
}

TEST(Fusion, AConvolutionOfOneChannelTakesItsBiasAndRelu) {
  // The direct kernel of one input channel applies per-channel adds and
  // relu over each output channel's image (a grey-image CNN's first layer).
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {2, 1, 9, 9}), f = n.In("f", {4, 1, 3, 3});
    ir::ValueId b = n.In("b", {4, 1, 1});
    n.b.Output("y", n.Op("relu", {n.Op("add", {n.Op("conv2d", {x, f}), b})}));
  });
  EXPECT_THAT(names,
              ElementsAre("conv2d+add+relu: C++ (direct, one input channel)"));
  // On the left, with leading ones, after relu, and one value for all.
  auto more = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {2, 1, 9, 9}), f = n.In("f", {4, 1, 3, 3});
    ir::ValueId b = n.In("b", {1, 4, 1, 1}), s = n.In("s", {1, 1});
    ir::ValueId y = n.Op("add", {b, n.Op("conv2d", {x, f})});
    n.b.Output("y", n.Op("add", {n.Op("relu", {y}), s}));
  });
  EXPECT_THAT(
      more,
      ElementsAre("conv2d+add+relu+add: C++ (direct, one input channel)"));
  // A tensor that varies along rows or images is no per-channel add.
  auto rows = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {2, 1, 9, 9}), f = n.In("f", {4, 1, 3, 3});
    ir::ValueId r = n.In("r", {4, 7, 1}), i = n.In("i", {2, 1, 1, 1});
    n.b.Output("y", n.Op("add", {n.Op("conv2d", {x, f}), r}));
    n.b.Output("z", n.Op("add", {n.Op("conv2d", {x, f}), i}));
  });
  for (const std::string& name : rows) {
    EXPECT_EQ(name.substr(0, name.find(':')).find('+'), std::string::npos)
        << name;
  }
}

TEST(Fusion, ConvolutionOfManyChannelsIsNoAnchor) {
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {2, 3, 9, 9}), f = n.In("f", {4, 3, 3, 3});
    ir::ValueId b = n.In("b", {4, 1, 1});
    n.b.Output("y", n.Op("relu", {n.Op("add", {n.Op("conv2d", {x, f}), b})}));
  });
  EXPECT_THAT(names, ElementsAre(::testing::StartsWith("conv2d: oneDNN"),
                                 ::testing::StartsWith("add: oneDNN"),
                                 ::testing::StartsWith("relu: oneDNN")));
}

TEST(Fusion, StopsWhereAValueIsReadTwiceOrIsAnOutput) {
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {4, 4}), w = n.In("w", {4, 4});
    ir::ValueId m = n.Op("matmul", {x, w});
    ir::ValueId r = n.Op("relu", {m});
    n.b.Output("m", m);  // m is also a result
    n.b.Output("r", r);
  });
  EXPECT_THAT(names, ElementsAre("matmul: oneDNN matmul",
                                 ::testing::StartsWith("relu: oneDNN")));
  auto twice = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {4, 4}), w = n.In("w", {4, 4});
    ir::ValueId m = n.Op("matmul", {x, w});
    n.b.Output("y", n.Op("add", {n.Op("relu", {m}), n.Op("exp", {m})}));
  });
  EXPECT_EQ(twice.front(), "matmul: oneDNN matmul");
}

TEST(Fusion, LeavesWhatWouldChangeTheResult) {
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {4, 4}), w = n.In("w", {4, 4});
    ir::ValueId c = n.In("c", {4});
    // c - m: the chain's value on the right of a subtraction.
    ir::ValueId y = n.Op("sub", {c, n.Op("matmul", {x, w})});
    // Broadcasting that enlarges the value.
    ir::ValueId z =
        n.Op("add", {n.Op("matmul", {x, w}), n.In("big", {3, 4, 4})});
    // gelu stays in C++, so it is not a post-op either.
    ir::ValueId g = n.Op("gelu", {n.Op("matmul", {x, w})});
    n.b.Output("y", y);
    n.b.Output("z", z);
    n.b.Output("g", g);
  });
  for (const std::string& name : names) {
    EXPECT_EQ(name.substr(0, name.find(':')).find('+'), std::string::npos)
        << name;
  }
}

TEST(Fusion, OtherOperandComputedAfterTheAnchorStopsTheChain) {
  auto names = FusedAndChecked([](Net& n) {
    ir::ValueId x = n.In("x", {4, 4}), w = n.In("w", {4, 4});
    ir::ValueId m = n.Op("matmul", {x, w});
    ir::ValueId later = n.Op("exp", {x});  // ordered after the matmul
    n.b.Output("y", n.Op("add", {m, later}));
  });
  // Whatever the order, the result is right (checked above); fused only if
  // exp ran first.
  EXPECT_FALSE(names.empty());
}

}  // namespace
}  // namespace webnnm::backends::cpu
