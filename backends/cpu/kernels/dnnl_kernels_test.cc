// The oneDNN kernels against the C++ kernels they replace: which one a node
// gets, and that both compute the same values on random data (float32 and
// float16), shapes and options chosen to reach every branch of the Try*
// functions of dnnl_kernels.h.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using testing::RunOptions;
using testing::Tensor;
using Ints = std::vector<int64_t>;
using Operands = std::vector<std::optional<Tensor>>;

// Deterministic values in [low, high).
Tensor Random(ir::DType dtype, Ints shape, uint32_t seed, double low = -2,
              double high = 2) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Tensor t{dtype, std::move(shape), {}};
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    t.values.push_back(low + (high - low) * (state / 4294967296.0));
  }
  return t;
}

struct Ran {
  std::vector<double> values;
  std::string implementation;
};

Ran RunOnce(const std::string& op, const Operands& operands,
            const ir::Attrs& attrs, bool reference) {
  std::vector<std::string> implementations;
  RunOptions options{.reference_kernels = reference,
                     .library_minimum_elements = 0,
                     .implementations = &implementations};
  auto results = testing::RunOp(op, operands, attrs, options);
  EXPECT_TRUE(results.ok()) << op << ": " << results.status();
  if (!results.ok() || implementations.size() != 1) return {};
  Ran ran{{}, implementations.front()};
  for (const Tensor& result : *results) {  // every result, one after another
    ran.values.insert(ran.values.end(), result.values.begin(),
                      result.values.end());
  }
  return ran;
}

// Which kernel a node should get by default.
enum Expect {
  kCpp = 0,
  kDnnl = 1,
  kEither = 2,  // oneDNN when it has more than a reference implementation
};

// Runs `op` both ways; expects `expect` by default, C++ with reference
// kernels, and the same values within a relative tolerance.
void ExpectSame(const std::string& op, const Operands& operands,
                const ir::Attrs& attrs = {}, int expect = kDnnl) {
  SCOPED_TRACE(op);
  Ran fast = RunOnce(op, operands, attrs, /*reference=*/false);
  Ran plain = RunOnce(op, operands, attrs, /*reference=*/true);
  EXPECT_THAT(plain.implementation, ::testing::EndsWith(": C++"));
  if (expect == kDnnl) {
    EXPECT_THAT(fast.implementation, ::testing::HasSubstr(": oneDNN "));
  } else if (expect == kCpp) {
    EXPECT_THAT(fast.implementation, ::testing::EndsWith(": C++"));
  }
  const bool half = operands[0]->dtype == ir::DType::kFloat16;
  const double tolerance = half ? 2e-3 : 2e-5;
  ASSERT_EQ(fast.values.size(), plain.values.size());
  ASSERT_FALSE(plain.values.empty());
  for (size_t i = 0; i < plain.values.size(); ++i) {
    const double a = fast.values[i], b = plain.values[i];
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i;
      continue;
    }
    EXPECT_NEAR(a, b, tolerance * std::max(1.0, std::fabs(b)))
        << "element " << i;
  }
}

constexpr ir::DType kF32 = ir::DType::kFloat32;
constexpr ir::DType kF16 = ir::DType::kFloat16;

TEST(DnnlEltwise, MatchesCpp) {
  for (ir::DType t : {kF32, kF16}) {
    Tensor x = Random(t, {3, 5, 7}, 1, -6, 6);
    Tensor positive = Random(t, {3, 5, 7}, 2, 0.01, 9);
    for (const char* op : {"relu", "tanh", "sigmoid", "exp", "abs", "neg",
                           "softplus", "hardSwish"}) {
      ExpectSame(op, {x});
    }
    ExpectSame("log", {positive}, {}, kCpp);
    ExpectSame("sqrt", {positive});
    ExpectSame("leakyRelu", {x}, A({{"alpha", 0.3}}));
    ExpectSame("elu", {x}, A({{"alpha", 0.7}}));
    ExpectSame("linear", {x}, A({{"alpha", -1.5}, {"beta", 0.25}}));
  }
}

// Values a user checks first come out exact (tolerances hide their loss).
TEST(DnnlEltwise, KeepsExactValues) {
  Tensor x = testing::F32({5}, {0, 1, -1, 4, 100});
  auto run = [&](const char* op) {
    Ran r = RunOnce(op, {x}, {}, /*reference=*/false);
    EXPECT_THAT(r.implementation, ::testing::HasSubstr(": oneDNN ")) << op;
    return r.values;
  };
  EXPECT_EQ(run("exp")[0], 1.0);
  EXPECT_EQ(run("tanh")[0], 0.0);
  EXPECT_EQ(run("sigmoid")[0], 0.5);
  EXPECT_EQ(run("sqrt")[3], 2.0);
  EXPECT_EQ(run("sqrt")[4], 10.0);
  EXPECT_EQ(run("relu")[2], 0.0);
  EXPECT_EQ(run("elu")[0], 0.0);
  EXPECT_EQ(run("softplus")[4], 100.0);
}

TEST(DnnlEltwise, LeavesOtherCasesToCpp) {
  Tensor x = Random(kF32, {4, 4}, 3);
  ExpectSame("gelu", {x}, {}, kCpp);  // oneDNN cancels for x < 0
  ExpectSame("hardSigmoid", {x}, {}, kCpp);
  ExpectSame("clamp", {x}, A({{"minValue", -1.0}, {"maxValue", 1.0}}), kCpp);
  ExpectSame("relu", {Random(ir::DType::kInt32, {4, 4}, 4, -50, 50)}, {}, kCpp);
}

TEST(DnnlBinary, MatchesCppWithBroadcasting) {
  for (ir::DType t : {kF32, kF16}) {
    Tensor a = Random(t, {2, 3, 4}, 5);
    for (const char* op : {"add", "sub", "mul", "div"}) {
      ExpectSame(op, {a, Random(t, {2, 3, 4}, 6, 0.5, 3)});
      ExpectSame(op, {a, Random(t, {4}, 7, 0.5, 3)});
      ExpectSame(op, {a, Random(t, {3, 1}, 8, 0.5, 3)});
      ExpectSame(op, {a, Random(t, {}, 9, 0.5, 3)});
    }
    // The first operand broadcast: add and mul swap their operands.
    ExpectSame("add", {Random(t, {1, 4}, 10), a});
    ExpectSame("mul", {Random(t, {3, 1}, 11), a});
    ExpectSame("prelu", {a, Random(t, {4}, 12)}, {}, kEither);
    ExpectSame("prelu", {a, Random(t, {3, 1}, 13)});
  }
}

TEST(DnnlBinary, LeavesOtherCasesToCpp) {
  Tensor a = Random(kF32, {2, 3, 4}, 14);
  ExpectSame("sub", {Random(kF32, {3, 1}, 15), a}, {}, kCpp);
  ExpectSame("add", {Random(kF32, {3, 1}, 16), Random(kF32, {1, 4}, 17)}, {},
             kCpp);
  ExpectSame("max", {a, Random(kF32, {4}, 18)}, {}, kCpp);  // NaN rules
  ExpectSame("pow", {Random(kF32, {4}, 19, 0.1, 3), Random(kF32, {4}, 20)}, {},
             kCpp);
}

TEST(DnnlReduction, MatchesCpp) {
  for (ir::DType t : {kF32, kF16}) {
    Tensor x = Random(t, {3, 4, 5}, 21, 0.2, 1.5);
    for (const char* op : {"reduceSum", "reduceMean", "reduceProduct",
                           "reduceL1", "reduceL2", "reduceSumSquare"}) {
      ExpectSame(op, {x}, {}, kEither);
      ExpectSame(op, {x}, A({{"axes", Ints{2}}}), kEither);
      ExpectSame(op, {x}, A({{"axes", Ints{1}}}), kEither);
      ExpectSame(op, {x}, A({{"axes", Ints{0, 2}}, {"keepDimensions", true}}),
                 kEither);
    }
  }
}

TEST(DnnlReduction, UsesOneDnnForWholeTensorSums) {
  Tensor x = Random(kF32, {64, 33}, 45);
  ExpectSame("reduceSum", {x});
  ExpectSame("reduceMean", {x});
  ExpectSame("reduceLogSum", {Random(kF32, {64, 33}, 46, 0.1, 2)}, {}, kCpp);
}

TEST(DnnlReduction, LeavesOtherCasesToCpp) {
  Tensor x = Random(kF32, {3, 4}, 22);
  ExpectSame("reduceMax", {x}, {}, kCpp);  // NaN rules
  ExpectSame("reduceLogSumExp", {x}, {}, kCpp);
  ExpectSame("reduceSum", {x}, A({{"axes", Ints{}}}), kCpp);
  ExpectSame("reduceSum", {Random(kF32, {3, 1}, 23)}, A({{"axes", Ints{1}}}),
             kCpp);
}

TEST(DnnlPooling, AveragePoolMatchesCpp) {
  for (ir::DType t : {kF32, kF16}) {
    Tensor nchw = Random(t, {2, 3, 7, 6}, 24);
    ExpectSame("averagePool2d", {nchw});
    ExpectSame("averagePool2d", {nchw},
               A({{"windowDimensions", Ints{3, 2}},
                  {"padding", Ints{1, 1, 0, 1}},
                  {"strides", Ints{2, 2}}}));
    ExpectSame("averagePool2d", {nchw},
               A({{"windowDimensions", Ints{2, 2}},
                  {"dilations", Ints{2, 2}},
                  {"roundingType", std::string("ceil")},
                  {"strides", Ints{2, 2}}}),
               kEither);  // oneDNN 2.6 has no jit pooling with dilations
    ExpectSame("averagePool2d", {Random(t, {1, 5, 5, 4}, 25)},
               A({{"windowDimensions", Ints{3, 3}},
                  {"padding", Ints{1, 1, 1, 1}},
                  {"layout", std::string("nhwc")}}));
  }
}

TEST(DnnlPooling, LeavesOtherCasesToCpp) {
  Tensor x = Random(kF32, {1, 2, 4, 4}, 26);
  ExpectSame("maxPool2d", {x}, A({{"windowDimensions", Ints{2, 2}}}), kCpp);
  ExpectSame("l2Pool2d", {x}, A({{"windowDimensions", Ints{2, 2}}}), kCpp);
  // The first window lies wholly in the padding.
  ExpectSame(
      "averagePool2d", {x},
      A({{"windowDimensions", Ints{2, 2}}, {"padding", Ints{2, 0, 0, 0}}}),
      kCpp);
}

TEST(DnnlNormalization, MatchesCpp) {
  for (ir::DType t : {kF32, kF16}) {
    Tensor x = Random(t, {2, 3, 4, 5}, 27);
    Tensor mean = Random(t, {3}, 28), variance = Random(t, {3}, 29, 0.5, 2);
    Tensor scale = Random(t, {3}, 30), bias = Random(t, {3}, 31);
    ExpectSame("batchNormalization", {x, mean, variance});
    ExpectSame("batchNormalization", {x, mean, variance, scale, bias},
               A({{"epsilon", 1e-3}}));
    ExpectSame("batchNormalization",
               {x, Random(t, {5}, 32), Random(t, {5}, 33, 0.5, 2), std::nullopt,
                Random(t, {5}, 34)},
               A({{"axis", int64_t{3}}}));
    ExpectSame("layerNormalization", {x});
    ExpectSame("layerNormalization",
               {x, Random(t, {4, 5}, 35), Random(t, {4, 5}, 36)},
               A({{"axes", Ints{2, 3}}}));
    ExpectSame("layerNormalization", {x, Random(t, {5}, 37)},
               A({{"axes", Ints{3}}}));
  }
}

TEST(DnnlNormalization, LeavesOtherCasesToCpp) {
  Tensor x = Random(kF32, {2, 3, 4}, 38);
  ExpectSame("layerNormalization", {x}, A({{"axes", Ints{1}}}), kCpp);
  ExpectSame("layerNormalization", {x}, A({{"axes", Ints{2, 1}}}), kCpp);
  ExpectSame("instanceNormalization", {Random(kF32, {2, 3, 4, 4}, 39)}, {},
             kCpp);
}

TEST(DnnlResampling, LinearMatchesCppOnAnyTwoAxes) {
  for (ir::DType t : {kF32, kF16}) {
    Tensor x = Random(t, {2, 3, 5, 4}, 47);
    ExpectSame("resample2d", {x},
               A({{"mode", std::string("linear")}, {"sizes", Ints{9, 7}}}),
               kEither);
    ExpectSame("resample2d", {x},
               A({{"mode", std::string("linear")},
                  {"scales", std::vector<double>{2.0, 0.5}},
                  {"axes", Ints{1, 2}}}),
               kEither);
    ExpectSame("resample2d", {x},
               A({{"mode", std::string("linear")},
                  {"sizes", Ints{4, 8}},
                  {"axes", Ints{0, 1}}}),
               kEither);
  }
  // The plain NCHW upsampling of a CNN has jit code.
  ExpectSame("resample2d", {Random(kF32, {1, 8, 6, 6}, 48)},
             A({{"mode", std::string("linear")}, {"sizes", Ints{12, 12}}}));
}

TEST(DnnlResampling, NearestNeighbourStaysInCpp) {
  ExpectSame("resample2d", {Random(kF32, {1, 2, 3, 3}, 49)},
             A({{"sizes", Ints{6, 6}}}), kCpp);
}

TEST(DnnlRecurrent, LstmMatchesCpp) {
  const int64_t steps = 3, batch = 2, input = 5, hidden = 4;
  for (const char* direction : {"forward", "backward", "both"}) {
    const int64_t d = std::string(direction) == "both" ? 2 : 1;
    Tensor x = Random(kF32, {steps, batch, input}, 50);
    Tensor w = Random(kF32, {d, 4 * hidden, input}, 51, -0.5, 0.5);
    Tensor r = Random(kF32, {d, 4 * hidden, hidden}, 52, -0.5, 0.5);
    Tensor b = Random(kF32, {d, 4 * hidden}, 53),
           rb = Random(kF32, {d, 4 * hidden}, 54);
    Tensor h0 = Random(kF32, {d, batch, hidden}, 55);
    Tensor c0 = Random(kF32, {d, batch, hidden}, 56);
    for (const char* layout : {"iofg", "ifgo"}) {
      ir::Attrs attrs = A({{"steps", steps},
                           {"hiddenSize", hidden},
                           {"direction", std::string(direction)},
                           {"layout", std::string(layout)},
                           {"returnSequence", true}});
      ExpectSame("lstm", {x, w, r, b, rb, std::nullopt, h0, c0}, attrs);
      ExpectSame("lstm", {x, w, r, std::nullopt, rb}, attrs);
      attrs.Set("returnSequence", false);
      ExpectSame("lstm", {x, w, r, b, std::nullopt, std::nullopt, h0}, attrs);
    }
  }
}

TEST(DnnlRecurrent, GruMatchesCpp) {
  const int64_t steps = 3, batch = 2, input = 5, hidden = 4;
  for (const char* direction : {"forward", "backward", "both"}) {
    const int64_t d = std::string(direction) == "both" ? 2 : 1;
    Tensor x = Random(kF32, {steps, batch, input}, 64);
    Tensor w = Random(kF32, {d, 3 * hidden, input}, 65, -0.5, 0.5);
    Tensor r = Random(kF32, {d, 3 * hidden, hidden}, 66, -0.5, 0.5);
    Tensor b = Random(kF32, {d, 3 * hidden}, 67);
    Tensor rb = Random(kF32, {d, 3 * hidden}, 68);
    Tensor h0 = Random(kF32, {d, batch, hidden}, 69);
    for (const char* layout : {"zrn", "rzn"}) {
      for (bool reset_after : {true, false}) {
        ir::Attrs attrs = A({{"steps", steps},
                             {"hiddenSize", hidden},
                             {"direction", std::string(direction)},
                             {"layout", std::string(layout)},
                             {"resetAfter", reset_after},
                             {"returnSequence", true}});
        ExpectSame("gru", {x, w, r, b, rb, h0}, attrs);
        ExpectSame("gru", {x, w, r, std::nullopt, rb}, attrs);
        attrs.Set("returnSequence", false);
        ExpectSame("gru", {x, w, r, b}, attrs);
      }
    }
  }
}

TEST(DnnlRecurrent, LeavesOtherCasesToCpp) {
  const int64_t steps = 2, batch = 1, input = 3, hidden = 2;
  Tensor x = Random(kF32, {steps, batch, input}, 57);
  Tensor w = Random(kF32, {1, 4 * hidden, input}, 58);
  Tensor r = Random(kF32, {1, 4 * hidden, hidden}, 59);
  ir::Attrs attrs = A({{"steps", steps}, {"hiddenSize", hidden}});
  // Peepholes: WebNN's output gate reads the previous cell state.
  ExpectSame(
      "lstm",
      {x, w, r, std::nullopt, std::nullopt, Random(kF32, {1, 3 * hidden}, 60)},
      attrs, kCpp);
  ir::Attrs relu = attrs;
  relu.Set("activations", std::vector<std::string>{"sigmoid", "relu", "tanh"});
  ExpectSame("lstm", {x, w, r}, relu, kCpp);
  ExpectSame("lstm",
             {Random(kF16, {steps, batch, input}, 61),
              Random(kF16, {1, 4 * hidden, input}, 62),
              Random(kF16, {1, 4 * hidden, hidden}, 63)},
             attrs, kCpp);
}

TEST(DnnlTranspose, MovesEveryBitOfOneAndFourByteTypes) {
  for (ir::DType t : {kF32, ir::DType::kInt32, ir::DType::kUint32,
                      ir::DType::kInt8, ir::DType::kUint8}) {
    Tensor x = Random(t, {3, 4, 5, 6}, 70, 0, 100);
    ExpectSame("transpose", {x});
    ExpectSame("transpose", {x}, A({{"permutation", Ints{0, 2, 3, 1}}}));
    ExpectSame("transpose", {Random(t, {64, 48}, 71, 0, 100)});
  }
  // NaN payloads and signed zeros come through as they are.
  Tensor special = testing::F32({2, 2}, {NAN, -0.0, INFINITY, -1.5});
  Ran fast = RunOnce("transpose", {special}, {}, false);
  EXPECT_TRUE(std::isnan(fast.values[0]));
  EXPECT_EQ(fast.values[1], INFINITY);
  EXPECT_TRUE(std::signbit(fast.values[2]));
  // float16 and 8-byte types stay on the C++ copy.
  ExpectSame("transpose", {Random(kF16, {4, 5}, 72)}, {}, kCpp);
  ExpectSame("transpose", {Random(ir::DType::kInt64, {4, 5}, 73, 0, 9)}, {},
             kCpp);
}

TEST(DnnlConcat, MovesBytesOfEveryType) {
  for (ir::DType t : {kF32, kF16, ir::DType::kInt64, ir::DType::kInt8}) {
    Tensor a = Random(t, {2, 3, 4}, 40, -100, 100);
    Tensor b = Random(t, {2, 1, 4}, 41, -100, 100);
    Tensor c = Random(t, {2, 2, 4}, 42, -100, 100);
    ExpectSame("concat", {a, b, c}, A({{"axis", int64_t{1}}}));
    // Equal slabs of 16 bytes interleave in C++ (layout_test.cc).
    ExpectSame("concat", {a, a}, A({{"axis", int64_t{2}}}),
               t == kF32 ? kCpp : kDnnl);
    ExpectSame("concat", {a, b, c}, A({{"axis", int64_t{1}}}));
  }
  // One operand: nothing for oneDNN to join.
  ExpectSame("concat", {Random(kF32, {2, 3}, 43)}, A({{"axis", int64_t{1}}}),
             kCpp);
}

// conv2d with a filter larger than its result (a filter gradient) runs as
// oneDNN's backward weights; the reference run takes the forward primitive.
void ExpectLargeFilterConv(const Operands& operands, const ir::Attrs& attrs) {
  Ran fast = RunOnce("conv2d", operands, attrs, /*reference=*/false);
  Ran plain = RunOnce("conv2d", operands, attrs, /*reference=*/true);
  EXPECT_THAT(fast.implementation, ::testing::HasSubstr("backward weights"));
  EXPECT_THAT(plain.implementation,
              ::testing::Not(::testing::HasSubstr("backward weights")));
  const bool half = operands[0]->dtype == kF16;
  ASSERT_EQ(fast.values.size(), plain.values.size());
  ASSERT_FALSE(plain.values.empty());
  for (size_t i = 0; i < plain.values.size(); ++i) {
    const double a = fast.values[i], b = plain.values[i];
    EXPECT_NEAR(a, b, (half ? 2e-3 : 1e-4) * std::max(1.0, std::fabs(b)))
        << "element " << i;
  }
}

TEST(LargeFilterConv2d, MatchesTheForwardPrimitive) {
  struct Case {
    Ints x, f;
    ir::Attrs attrs;
  };
  const std::vector<Case> cases = {
      // Two "images", padding, strides (dilations of the swapped problem).
      {{2, 6, 9, 9},
       {3, 6, 7, 7},
       A({{"padding", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}})},
      // Dilations (strides of the swapped problem), asymmetric padding.
      {{2, 5, 11, 10},
       {3, 5, 6, 5},
       A({{"dilations", Ints{2, 2}}, {"padding", Ints{1, 0, 0, 1}}})},
  };
  uint32_t seed = 80;
  for (const Case& c : cases) {
    SCOPED_TRACE(seed);
    ExpectLargeFilterConv(
        {Random(kF32, c.x, seed), Random(kF32, c.f, seed + 1)}, c.attrs);
    seed += 2;
  }
  // nhwc input with an ohwi filter, and float16.
  ExpectLargeFilterConv(
      {Random(kF32, {1, 12, 12, 16}, 90), Random(kF32, {4, 10, 10, 16}, 91)},
      A({{"inputLayout", std::string("nhwc")},
         {"filterLayout", std::string("ohwi")}}));
  ExpectLargeFilterConv(
      {Random(kF16, {1, 16, 12, 12}, 92), Random(kF16, {4, 16, 10, 10}, 93)},
      {});
  // A small filter keeps the forward primitive.
  Ran small =
      RunOnce("conv2d",
              {Random(kF32, {2, 3, 8, 8}, 96), Random(kF32, {4, 3, 3, 3}, 97)},
              {}, false);
  EXPECT_THAT(small.implementation,
              ::testing::Not(::testing::HasSubstr("backward weights")));
}

// conv2d by its definition: nchw input, oihw filter, optional bias.
std::vector<double> NaiveConv2d(const Tensor& x, const Tensor& f,
                                const Tensor* bias, int64_t pad, int64_t stride,
                                Ints* shape);

TEST(LargeFilterConv2d, SmallResultsRunDirectAndMatchTheDefinition) {
  struct Case {
    Ints x, f;
  };
  const std::vector<Case> cases = {
      // The Fashion CNN's first filter gradient: rows of a whole chunk and
      // a tail of ten columns, 3 x 3 results, eight filters (3 + 3 + 2).
      {{1, 64, 28, 28}, {8, 64, 26, 26}},
      // Its second: tails alone (11 columns), two images, seven filters.
      {{2, 5, 13, 13}, {7, 5, 11, 11}},
      // Whole chunks alone (16 and 32 columns), 1 x 3 and 2 x 3 results.
      {{1, 3, 12, 18}, {4, 3, 12, 16}},
      {{1, 2, 9, 34}, {2, 2, 8, 32}},
      // One position, one filter, one channel.
      {{1, 1, 6, 5}, {1, 1, 6, 5}},
  };
  uint32_t seed = 140;
  for (const Case& c : cases) {
    SCOPED_TRACE(seed);
    const Tensor x = Random(kF32, c.x, seed), f = Random(kF32, c.f, seed + 1);
    seed += 2;
    Ran ran = RunOnce("conv2d", {x, f}, {}, false);
    EXPECT_EQ(ran.implementation,
              "conv2d: C++ (direct, filter larger than the result)");
    Ints shape;
    const std::vector<double> want = NaiveConv2d(x, f, nullptr, 0, 1, &shape);
    // Float sums of up to 43,000 products: within 1e-5 of the sum of the
    // products' magnitudes (a chunk or a row left out misses by far more).
    Tensor ax = x, af = f;
    for (double& v : ax.values) v = std::fabs(v);
    for (double& v : af.values) v = std::fabs(v);
    const std::vector<double> size = NaiveConv2d(ax, af, nullptr, 0, 1, &shape);
    ASSERT_EQ(ran.values.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(ran.values[i], want[i], 1e-5 * size[i]) << "element " << i;
    }
  }
  // Infinities and NaNs reach exactly the results whose sums hold them
  // (the lanes past a row are zeros, not the next row's values).
  Tensor x = Random(kF32, {1, 2, 13, 13}, 150);
  Tensor f = Random(kF32, {4, 2, 11, 11}, 151);
  x.values[0 * 169 + 0 * 13 + 12] = INFINITY;        // read by q = 2 only
  f.values[(3 * 2 + 1) * 121 + 10 * 11 + 10] = NAN;  // filter 3's last tap
  Ran ran = RunOnce("conv2d", {x, f}, {}, false);
  EXPECT_EQ(ran.implementation,
            "conv2d: C++ (direct, filter larger than the result)");
  Ints shape;
  const std::vector<double> want = NaiveConv2d(x, f, nullptr, 0, 1, &shape);
  ASSERT_EQ(ran.values.size(), want.size());
  int special = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(std::isnan(ran.values[i]), std::isnan(want[i]));
    EXPECT_EQ(std::isinf(ran.values[i]), std::isinf(want[i]));
    special += !std::isfinite(want[i]);
    if (std::isinf(want[i])) EXPECT_EQ(ran.values[i], want[i]);
    if (std::isfinite(want[i])) {
      EXPECT_NEAR(ran.values[i], want[i],
                  1e-5 * std::max(1.0, std::fabs(want[i])));
    }
  }
  EXPECT_GT(special, 9);
  EXPECT_LT(special, 36);
  // Padding, strides or a larger result keep oneDNN's primitive.
  Ran padded = RunOnce(
      "conv2d",
      {Random(kF32, {1, 4, 12, 12}, 152), Random(kF32, {2, 4, 12, 12}, 153)},
      A({{"padding", Ints{1, 1, 1, 1}}}), false);
  EXPECT_THAT(padded.implementation, ::testing::HasSubstr("backward weights"));
  Ran wide = RunOnce(
      "conv2d",
      {Random(kF32, {1, 4, 14, 14}, 154), Random(kF32, {2, 4, 10, 10}, 155)},
      {}, false);
  EXPECT_THAT(wide.implementation, ::testing::HasSubstr("backward weights"));
}

// conv2d by its definition: nchw input, oihw filter, optional bias.
std::vector<double> NaiveConv2d(const Tensor& x, const Tensor& f,
                                const Tensor* bias, int64_t pad, int64_t stride,
                                Ints* shape) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t o = f.shape[0], kh = f.shape[2], kw = f.shape[3];
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w + 2 * pad - kw) / stride + 1;
  *shape = {n, o, oh, ow};
  std::vector<double> y;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < o; ++k) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double sum = bias ? bias->values[k] : 0.0;
          for (int64_t ch = 0; ch < c; ++ch) {
            for (int64_t r = 0; r < kh; ++r) {
              for (int64_t s = 0; s < kw; ++s) {
                const int64_t yy = i * stride + r - pad,
                              xx = j * stride + s - pad;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                sum += x.values[((b * c + ch) * h + yy) * w + xx] *
                       f.values[((k * c + ch) * kh + r) * kw + s];
              }
            }
          }
          y.push_back(sum);
        }
      }
    }
  }
  return y;
}

TEST(Conv2d, ManyChannelsRunInTheirOwnFormatsAndMatchTheDefinition) {
  // 8 -> 16 channels on nchw: oneDNN's blocked convolution with reorders.
  const Tensor x = Random(kF32, {3, 8, 9, 7}, 120);
  const Tensor f = Random(kF32, {16, 8, 3, 3}, 121);
  const Tensor bias = Random(kF32, {16}, 122);
  const ir::Attrs attrs =
      A({{"padding", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}});
  Ran ran = RunOnce("conv2d", {x, f, bias}, attrs, false);
  EXPECT_THAT(ran.implementation, ::testing::HasSubstr("reordered"));
  Ints shape;
  std::vector<double> want = NaiveConv2d(x, f, &bias, 1, 2, &shape);
  ASSERT_EQ(ran.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(ran.values[i], want[i],
                1e-4 * std::max(1.0, std::fabs(want[i])))
        << "element " << i;
  }
  // Its transposed convolution (the input gradient: 16 -> 8 channels)
  // reordered too: <convTranspose2d(dy, f), x> = <dy, conv2d(x, f)>.
  const Tensor dy = Random(kF32, shape, 123);
  Ran back = RunOnce("convTranspose2d", {dy, f},
                     A({{"padding", Ints{1, 1, 1, 1}},
                        {"strides", Ints{2, 2}},
                        {"filterLayout", std::string("iohw")},
                        {"outputSizes", Ints{9, 7}}}),
                     false);
  EXPECT_THAT(back.implementation, ::testing::HasSubstr("reordered"));
  std::vector<double> plain = NaiveConv2d(x, f, nullptr, 1, 2, &shape);
  ASSERT_EQ(back.values.size(), x.values.size());
  double left = 0, right = 0;
  for (size_t i = 0; i < x.values.size(); ++i) {
    left += back.values[i] * x.values[i];
  }
  for (size_t i = 0; i < plain.size(); ++i) right += dy.values[i] * plain[i];
  EXPECT_NEAR(left, right, 1e-4 * std::max(1.0, std::fabs(right)));
  // One input channel keeps our layout.
  Ran one = RunOnce(
      "conv2d",
      {Random(kF32, {2, 1, 8, 8}, 124), Random(kF32, {8, 1, 3, 3}, 125)},
      A({{"strides", Ints{2, 2}}}), false);
  EXPECT_THAT(one.implementation,
              ::testing::Not(::testing::HasSubstr("reordered")));
}

TEST(Conv2d, OneInputChannelRunsDirectAndMatchesTheDefinition) {
  const Tensor x = Random(kF32, {3, 1, 9, 7}, 130);
  const Tensor f = Random(kF32, {5, 1, 3, 3}, 131);
  const Tensor bias = Random(kF32, {5}, 132);
  for (int64_t pad : {0, 1, 2}) {
    SCOPED_TRACE(pad);
    Ran ran = RunOnce("conv2d", {x, f, bias},
                      A({{"padding", Ints{pad, pad, pad, pad}}}), false);
    EXPECT_EQ(ran.implementation, "conv2d: C++ (direct, one input channel)");
    Ints shape;
    std::vector<double> want = NaiveConv2d(x, f, &bias, pad, 1, &shape);
    ASSERT_EQ(ran.values.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(ran.values[i], want[i],
                  1e-5 * std::max(1.0, std::fabs(want[i])))
          << "element " << i;
    }
  }
  // The 3x3 filter's sums in the scalar loop's order, bit for bit: the
  // bias, then each tap's product (rounded) added row by row.
  {
    const Tensor x3 = Random(kF32, {2, 1, 7, 37}, 134);
    const Tensor f3 = Random(kF32, {6, 1, 3, 3}, 135);
    const Tensor b3 = Random(kF32, {6}, 136);
    Ran ran = RunOnce("conv2d", {x3, f3, b3}, {}, false);
    EXPECT_EQ(ran.implementation, "conv2d: C++ (direct, one input channel)");
    ASSERT_EQ(ran.values.size(), 2u * 6 * 5 * 35);
    size_t at = 0;
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t o = 0; o < 6; ++o) {
        for (int64_t i = 0; i < 5; ++i) {
          for (int64_t j = 0; j < 35; ++j) {
            float acc = static_cast<float>(b3.values[o]);
            for (int64_t r = 0; r < 3; ++r) {
              for (int64_t c = 0; c < 3; ++c) {
                const float product =
                    static_cast<float>(
                        x3.values[(n * 7 + i + r) * 37 + j + c]) *
                    static_cast<float>(f3.values[o * 9 + r * 3 + c]);
                acc += product;
              }
            }
            EXPECT_EQ(static_cast<float>(ran.values[at]), acc)
                << n << " " << o << " " << i << " " << j;
            ++at;
          }
        }
      }
    }
  }
  // Another filter size (the general loop rather than the 3x3 one).
  const Tensor f24 = Random(kF32, {4, 1, 2, 4}, 133);
  Ran other =
      RunOnce("conv2d", {x, f24}, A({{"padding", Ints{1, 1, 1, 1}}}), false);
  EXPECT_EQ(other.implementation, "conv2d: C++ (direct, one input channel)");
  Ints other_shape;
  std::vector<double> other_want =
      NaiveConv2d(x, f24, nullptr, 1, 1, &other_shape);
  ASSERT_EQ(other.values.size(), other_want.size());
  for (size_t i = 0; i < other_want.size(); ++i) {
    EXPECT_NEAR(other.values[i], other_want[i],
                1e-5 * std::max(1.0, std::fabs(other_want[i])))
        << "element " << i;
  }
  // The filter in hwio: the same convolution, without bias.
  Tensor hwio = f;
  hwio.shape = {3, 3, 1, 5};
  for (int64_t k = 0; k < 5; ++k) {
    for (int64_t p = 0; p < 9; ++p)
      hwio.values[p * 5 + k] = f.values[k * 9 + p];
  }
  Ran ran = RunOnce("conv2d", {x, hwio},
                    A({{"filterLayout", std::string("hwio")}}), false);
  EXPECT_EQ(ran.implementation, "conv2d: C++ (direct, one input channel)");
  Ints shape;
  std::vector<double> want = NaiveConv2d(x, f, nullptr, 0, 1, &shape);
  ASSERT_EQ(ran.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(ran.values[i], want[i],
                1e-5 * std::max(1.0, std::fabs(want[i])))
        << "element " << i;
  }
}

}  // namespace
}  // namespace webnnm::backends::cpu
