// The oneDNN kernels against the C++ kernels they replace: which one a node
// gets, and that both compute the same values on random data (float32 and
// float16), shapes and options chosen to reach every branch of the Try*
// functions of dnnl_kernels.h (the convolutions': conv_test.cc).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/testing/one_kernel.h"
#include "backends/cpu/testing/run_op.h"

namespace webnnm::backends::cpu {
namespace {

using testing::A;
using testing::Ran;
using testing::Random;
using testing::RunOnce;
using testing::RunOptions;
using testing::Tensor;
using Ints = std::vector<int64_t>;
using Operands = std::vector<std::optional<Tensor>>;

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

}  // namespace
}  // namespace webnnm::backends::cpu
