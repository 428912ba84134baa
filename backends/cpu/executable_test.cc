// Compiling and running graphs on the CPU backend: buffers, reuse, repeated
// runs, and the checks that protect the kernels.
#include <cmath>
#include <cstring>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/cpu/executable.h"
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

// `graph` compiled with the compiler's rewrites and without them
// (CompileOptions::fusion off), `options` otherwise; nullptr on failure.
struct Compiled {
  std::unique_ptr<Executable> rewritten, plain;
};
Compiled RewrittenAndPlain(const ir::Graph& graph,
                           CompileOptions options = {}) {
  Compiled c;
  options.fusion = true;
  auto rewritten = Cpu()->Compile(graph, options);
  options.fusion = false;
  auto plain = Cpu()->Compile(graph, options);
  EXPECT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_TRUE(plain.ok()) << plain.status();
  if (rewritten.ok()) c.rewritten = *std::move(rewritten);
  if (plain.ok()) c.plain = *std::move(plain);
  return c;
}

// How many of `exe`'s kernels have names that start with `prefix`.
int KernelsNamed(const Executable& exe, std::string_view prefix) {
  int n = 0;
  for (const std::string& name : exe.implementations()) {
    n += name.starts_with(prefix);
  }
  return n;
}

// n deterministic values: multiples of `scale` from -11 to 11 times it.
std::vector<float> Pattern(int64_t n, float scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = scale * static_cast<float>((i * 37) % 23 - 11);
  }
  return v;
}

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

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

// A momentum update, m' = 0.9 m + g and w' = w - 0.1 m', carried back into
// m and w; with `read_w_after`, an operation that needs the update done
// reads w too: wPlus = w + Σ w'.
ir::Graph MomentumStep(int64_t n, bool read_w_after) {
  ir::GraphBuilder b;
  ir::ValueId w = b.Input("w", F32({n}));
  ir::ValueId m = b.Input("m", F32({n}));
  ir::ValueId g = b.Input("g", F32({n}));
  auto mu = b.Constant("mu", F32({}), ir::ScalarData(ir::DType::kFloat32, 0.9));
  auto lr = b.Constant("lr", F32({}), ir::ScalarData(ir::DType::kFloat32, 0.1));
  ir::ValueId new_m = (*b.Op(ir::OpKind::kMul, {m, *mu}))[0];
  new_m = (*b.Op(ir::OpKind::kAdd, {new_m, g}))[0];
  ir::ValueId step = (*b.Op(ir::OpKind::kMul, {new_m, *lr}))[0];
  ir::ValueId new_w = (*b.Op(ir::OpKind::kSub, {w, step}))[0];
  b.Output("newM", new_m);
  b.Output("newW", new_w);
  if (read_w_after) {
    ir::Attrs all;
    all.Set("axes", std::vector<int64_t>{0});
    ir::ValueId sum = (*b.Op(ir::OpKind::kReduceSum, {new_w}, all))[0];
    b.Output("wPlus", (*b.Op(ir::OpKind::kAdd, {w, sum}))[0]);
  }
  return b.Finish();
}

TEST(Executable, CarriedUpdatesRunInPlaceWhenNothingReadsTheInputAfter) {
  constexpr int64_t n = 1000;
  for (bool read_w_after : {false, true}) {
    CompileOptions options;
    options.carries = {{"newM", "m"}, {"newW", "w"}};
    auto exe = Cpu()->Compile(MomentumStep(n, read_w_after), options);
    ASSERT_TRUE(exe.ok()) << exe.status();
    // m always; w only when nothing reads it after the update.
    EXPECT_EQ(dynamic_cast<CpuExecutable&>(**exe).in_place_carries(),
              read_w_after ? 1 : 2);
    std::vector<float> w(n), m(n, 0.0f), g(n);
    for (int64_t i = 0; i < n; ++i) w[i] = 0.01f * static_cast<float>(i);
    Write(**exe, "w", w);
    Write(**exe, "m", m);
    for (int run = 0; run < 4; ++run) {
      for (int64_t i = 0; i < n; ++i) {
        g[i] = static_cast<float>((i * 7 + run) % 13) - 6.0f;
      }
      Write(**exe, "g", g);
      const std::vector<float> old_w = w;
      for (int64_t i = 0; i < n; ++i) {
        m[i] = m[i] * 0.9f + g[i];
        w[i] = w[i] - m[i] * 0.1f;
      }
      ASSERT_TRUE((*exe)->Run().ok());
      auto current_w = (*exe)->Current((*exe)->FindInput("w"));
      auto current_m = (*exe)->Current((*exe)->FindInput("m"));
      ASSERT_TRUE(current_w.ok() && current_m.ok());
      std::vector<float> got_w(n), got_m(n);
      std::memcpy(got_w.data(), current_w->data(), n * sizeof(float));
      std::memcpy(got_m.data(), current_m->data(), n * sizeof(float));
      EXPECT_EQ(got_w, w) << "run " << run;
      EXPECT_EQ(got_m, m) << "run " << run;
      if (read_w_after) {  // w before this run's update
        float sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += w[i];
        const std::vector<float> plus = Read(**exe, "wPlus");
        ASSERT_EQ(plus.size(), static_cast<size_t>(n));
        for (int64_t i = 0; i < n; i += 97) {
          EXPECT_NEAR(plus[i], old_w[i] + sum, 1e-5f * std::abs(sum) + 1e-4f)
              << "run " << run << " element " << i;
        }
      }
    }
  }
}

// The weight gradient's x^T dy and the input gradient's dy w^T, at a size
// for oneDNN and a size for the small loop, batched too: the transposes are
// folded into the matmuls (read with swapped strides, no kernel of their
// own) and the results equal the unfused executable's.
TEST(Executable, TransposesReadOnlyByMatmulsAreFolded) {
  struct Case {
    std::vector<int64_t> x, w;  // x: [..., M, K] read as x^T; w as w^T
  };
  // (A weight gradient of at most 16 values, x^T dy with x [16, 4] and
  // x [3, 2], runs on the small matmul's tile.)
  for (const Case& c :
       {Case{{64, 96}, {40, 64}}, Case{{3, 2}, {4, 3}}, Case{{16, 4}, {3, 16}},
        Case{{2, 16, 24}, {2, 20, 16}}}) {
    ir::GraphBuilder b;
    ir::ValueId x = b.Input("x", F32(c.x));
    ir::ValueId dy = b.Input("dy", F32(c.x));  // [..., M, K]
    ir::ValueId w = b.Input("w", F32(c.w));    // [..., N, M]
    const int rank = static_cast<int>(c.x.size());
    std::vector<int64_t> swap(rank);
    for (int i = 0; i < rank; ++i) swap[i] = i;
    std::swap(swap[rank - 2], swap[rank - 1]);
    ir::Attrs perm;
    perm.Set("permutation", swap);
    ir::ValueId xt = (*b.Op(ir::OpKind::kTranspose, {x}, perm))[0];
    ir::ValueId wt = (*b.Op(ir::OpKind::kTranspose, {w}, perm))[0];
    b.Output("xtDy", (*b.Op(ir::OpKind::kMatmul, {xt, dy}))[0]);  // [K, K]
    b.Output("wtW", (*b.Op(ir::OpKind::kMatmul, {wt, w}))[0]);    // [M, M]
    b.Output("dyWt", (*b.Op(ir::OpKind::kMatmul, {w, dy}))[0]);   // [N, K]
    const ir::Graph graph = b.Finish();
    Compiled compiled = RewrittenAndPlain(graph);
    ASSERT_TRUE(compiled.rewritten && compiled.plain);
    EXPECT_EQ(KernelsNamed(*compiled.rewritten, "transpose"), 0);
    for (Executable* exe : {compiled.rewritten.get(), compiled.plain.get()}) {
      Write(*exe, "x", Pattern(Count(c.x), 0.5f));
      Write(*exe, "dy", Pattern(Count(c.x), 0.25f));
      Write(*exe, "w", Pattern(Count(c.w), 0.125f));
      ASSERT_TRUE(exe->Run().ok());
    }
    for (const char* out : {"xtDy", "wtW", "dyWt"}) {
      const std::vector<float> got = Read(*compiled.rewritten, out);
      const std::vector<float> want = Read(*compiled.plain, out);
      ASSERT_EQ(got.size(), want.size()) << out;
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-4f * std::abs(want[i]) + 1e-4f)
            << out << " element " << i;
      }
    }
  }
}

// A small weight gradient x^T dy (at most 16 results, x read down its
// columns through the folded transpose: the small matmul's tile) sums each
// result's products in order in double, rounded once — exactly as this
// test does. Row 0 of x ends in 2^60 and -2^60 against rows of ones in
// dy: in order the products before them are lost, in any other order not.
TEST(Executable, SmallWeightGradientsSumInOrder) {
  const int64_t batch = 16, in = 4, out = 3;
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({batch, in}));
  ir::ValueId dy = b.Input("dy", F32({batch, out}));
  ir::Attrs perm;
  perm.Set("permutation", std::vector<int64_t>{1, 0});
  ir::ValueId xt = (*b.Op(ir::OpKind::kTranspose, {x}, perm))[0];
  b.Output("g", (*b.Op(ir::OpKind::kMatmul, {xt, dy}))[0]);
  auto exe = Cpu()->Compile(b.Finish(), CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(KernelsNamed(**exe, "transpose"), 0);
  std::vector<float> xs = Pattern(batch * in, 0.37f);
  std::vector<float> dys = Pattern(batch * out, 0.21f);
  xs[(batch - 2) * in] = std::ldexp(1.0f, 60);
  xs[(batch - 1) * in] = -std::ldexp(1.0f, 60);
  for (int64_t j = 0; j < out; ++j) {
    dys[(batch - 2) * out + j] = dys[(batch - 1) * out + j] = 1;
  }
  Write(**exe, "x", xs);
  Write(**exe, "dy", dys);
  ASSERT_TRUE((*exe)->Run().ok());
  const std::vector<float> g = Read(**exe, "g");
  ASSERT_EQ(g.size(), static_cast<size_t>(in * out));
  for (int64_t i = 0; i < in; ++i) {
    for (int64_t j = 0; j < out; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < batch; ++p) {
        sum += static_cast<double>(xs[p * in + i]) * dys[p * out + j];
      }
      EXPECT_EQ(g[i * out + j], static_cast<float>(sum)) << i << "," << j;
    }
  }
}

// A small input gradient dy W^T (W of at most 16 values read whole
// through the folded transpose: the small matmul's row tiles) sums each
// result's products in order, exactly; dy's row 0 ends in 2^60 and -2^60
// against W columns of ones, so another order would show.
TEST(Executable, SmallInputGradientsSumInOrder) {
  const int64_t batch = 16, in = 4, out = 3;
  ir::GraphBuilder b;
  ir::ValueId dy = b.Input("dy", F32({batch, out}));
  ir::ValueId w = b.Input("w", F32({in, out}));
  ir::Attrs perm;
  perm.Set("permutation", std::vector<int64_t>{1, 0});
  ir::ValueId wt = (*b.Op(ir::OpKind::kTranspose, {w}, perm))[0];
  b.Output("dx", (*b.Op(ir::OpKind::kMatmul, {dy, wt}))[0]);
  auto exe = Cpu()->Compile(b.Finish(), CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(KernelsNamed(**exe, "transpose"), 0);
  std::vector<float> dys = Pattern(batch * out, 0.37f);
  std::vector<float> ws = Pattern(in * out, 0.21f);
  dys[1] = std::ldexp(1.0f, 60);
  dys[2] = -std::ldexp(1.0f, 60);
  for (int64_t i = 0; i < in; ++i) ws[i * out + 1] = ws[i * out + 2] = 1;
  Write(**exe, "dy", dys);
  Write(**exe, "w", ws);
  ASSERT_TRUE((*exe)->Run().ok());
  const std::vector<float> dx = Read(**exe, "dx");
  ASSERT_EQ(dx.size(), static_cast<size_t>(batch * in));
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t i = 0; i < in; ++i) {
      double sum = 0;
      for (int64_t p = 0; p < out; ++p) {
        sum += static_cast<double>(dys[r * out + p]) * ws[i * out + p];
      }
      EXPECT_EQ(dx[r * in + i], static_cast<float>(sum)) << r << "," << i;
    }
  }
}

// Transposes of the first two of four dimensions that only conv2d nodes
// on the direct loops of a large filter read (a filter gradient's images
// and dy) are not run either; nor are transposes that move only
// dimensions of size one (reshapes). The same bits as running them.
TEST(Executable, TransposesReadByFilterGradientsAreFolded) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({6, 3, 12, 12}));
  ir::ValueId dy = b.Input("dy", F32({6, 4, 10, 10}));
  ir::ValueId one = b.Input("one", F32({6, 1, 12, 12}));
  ir::Attrs swap;
  swap.Set("permutation", std::vector<int64_t>{1, 0, 2, 3});
  ir::ValueId xt = (*b.Op(ir::OpKind::kTranspose, {x}, swap))[0];
  ir::ValueId dyt = (*b.Op(ir::OpKind::kTranspose, {dy}, swap))[0];
  // (Of an operation's result: a graph input's buffer is never aliased.)
  ir::ValueId neg = (*b.Op(ir::OpKind::kNeg, {one}))[0];
  ir::ValueId onet = (*b.Op(ir::OpKind::kTranspose, {neg}, swap))[0];
  // [3, 6, 12, 12] * [4, 6, 10, 10] -> [3, 4, 3, 3]: direct loops.
  b.Output("dw", (*b.Op(ir::OpKind::kConv2d, {xt, dyt}))[0]);
  // [1, 6, 12, 12] * [4, 6, 10, 10]: direct too, its image a reshape.
  b.Output("dw1", (*b.Op(ir::OpKind::kConv2d, {onet, dyt}))[0]);
  // Padded: not on the direct loops, so its transposes run.
  ir::Attrs padded;
  padded.Set("padding", std::vector<int64_t>{1, 1, 1, 1});
  ir::ValueId xt2 = (*b.Op(ir::OpKind::kTranspose, {x}, swap))[0];
  ir::ValueId dyt2 = (*b.Op(ir::OpKind::kTranspose, {dy}, swap))[0];
  b.Output("dwPadded", (*b.Op(ir::OpKind::kConv2d, {xt2, dyt2}, padded))[0]);
  // A transpose moving a dimension of size one, read by relu.
  b.Output("r", (*b.Op(ir::OpKind::kRelu, {onet}))[0]);
  const ir::Graph graph = b.Finish();
  CompileOptions any_size;
  any_size.library_minimum_elements = 0;
  Compiled c = RewrittenAndPlain(graph, any_size);
  ASSERT_TRUE(c.rewritten && c.plain);
  EXPECT_EQ(KernelsNamed(*c.rewritten, "transpose"), 2);  // the padded one's
  int direct = 0;
  for (const std::string& k : c.rewritten->implementations()) {
    direct += k.find("filter larger than the result") != std::string::npos;
  }
  EXPECT_EQ(direct, 2);
  for (Executable* exe : {c.rewritten.get(), c.plain.get()}) {
    Write(*exe, "x", Pattern(6 * 3 * 144, 0.5f));
    Write(*exe, "dy", Pattern(6 * 4 * 100, 0.25f));
    Write(*exe, "one", Pattern(6 * 144, -0.75f));
    ASSERT_TRUE(exe->Run().ok());
  }
  for (const char* out : {"dw", "dw1", "dwPadded", "r"}) {
    EXPECT_EQ(Read(*c.rewritten, out), Read(*c.plain, out)) << out;
  }
}

// relu's gradient after a max-pooling gradient, where(y > 0, g, 0) with
// g = maxPool2dGradient(y, dy), runs as one kernel: the same bits as the
// three (ties, NaNs, zeros and negative maxima; 2x2 and 3x3 windows), and
// not when the mask is read elsewhere.
TEST(Executable, ReluGradientsAfterPoolingGradientsRunInThem) {
  for (int64_t k : {2, 3}) {
    SCOPED_TRACE(k);
    const int64_t h = 4 * k, w = 5 * k;
    ir::GraphBuilder b;
    // Large enough that greater and where make no element-wise group.
    ir::ValueId y = b.Input("y", F32({8, 8, h, w}));
    ir::ValueId dy = b.Input("dy", F32({8, 8, 4, 5}));
    auto zero = [&](const char* name) {
      return *b.Constant(name, F32({}), ir::ScalarData(ir::DType::kFloat32, 0));
    };
    ir::Attrs window;
    window.Set("windowDimensions", std::vector<int64_t>{k, k});
    ir::ValueId g = (*b.Op(ir::OpKind::kMaxPool2dGradient, {y, dy}, window))[0];
    ir::ValueId m = (*b.Op(ir::OpKind::kGreater, {y, zero("z1")}))[0];
    b.Output("dx", (*b.Op(ir::OpKind::kWhere, {m, g, zero("z2")}))[0]);
    // The same again with the mask also a result: three kernels.
    ir::ValueId g2 =
        (*b.Op(ir::OpKind::kMaxPool2dGradient, {y, dy}, window))[0];
    ir::ValueId m2 = (*b.Op(ir::OpKind::kGreater, {y, zero("z3")}))[0];
    b.Output("dx2", (*b.Op(ir::OpKind::kWhere, {m2, g2, zero("z4")}))[0]);
    b.Output("mask", m2);
    // dy a reshape of an operation's result, and an operation between the
    // gradient and the where that could take its buffer if its lifetime
    // ended at the gradient's step.
    ir::ValueId flat = b.Input("flat", F32({8, 8 * 20}));
    ir::ValueId negated = (*b.Op(ir::OpKind::kNeg, {flat}))[0];
    ir::Attrs to4;
    to4.Set("newShape", std::vector<int64_t>{8, 8, 4, 5});
    ir::ValueId dy3 = (*b.Op(ir::OpKind::kReshape, {negated}, to4))[0];
    ir::ValueId g3 =
        (*b.Op(ir::OpKind::kMaxPool2dGradient, {y, dy3}, window))[0];
    ir::ValueId m3 = (*b.Op(ir::OpKind::kGreater, {y, zero("z5")}))[0];
    ir::ValueId between = (*b.Op(ir::OpKind::kTranspose, {flat}))[0];
    b.Output("between", (*b.Op(ir::OpKind::kReduceSum, {between}))[0]);
    b.Output("dx3", (*b.Op(ir::OpKind::kWhere, {m3, g3, zero("z6")}))[0]);
    const ir::Graph graph = b.Finish();
    Compiled c = RewrittenAndPlain(graph);
    ASSERT_TRUE(c.rewritten && c.plain);
    EXPECT_EQ(KernelsNamed(*c.rewritten, "maxPool2dGradient+greater+where"), 2);
    EXPECT_EQ(KernelsNamed(*c.rewritten, "maxPool2dGradient"), 3);
    std::vector<float> yv(8 * 8 * h * w), dyv(8 * 8 * 4 * 5);
    for (size_t i = 0; i < yv.size(); ++i) {
      const int r = static_cast<int>((i * 7919) % 17);
      yv[i] = r == 0   ? NAN
              : r == 1 ? -0.0f
                       : static_cast<float>(r % 5) - 2.0f;  // ties, <= 0
    }
    for (size_t i = 0; i < dyv.size(); ++i) {
      dyv[i] = static_cast<float>(i % 7) - 3.0f;  // -0 never: +0 and signs
    }
    std::vector<float> flatv(dyv.size());
    for (size_t i = 0; i < flatv.size(); ++i) flatv[i] = dyv[i] + 0.5f;
    for (Executable* exe : {c.rewritten.get(), c.plain.get()}) {
      Write(*exe, "y", yv);
      Write(*exe, "dy", dyv);
      Write(*exe, "flat", flatv);
      ASSERT_TRUE(exe->Run().ok());
    }
    for (const char* out : {"dx", "dx2", "dx3"}) {
      const std::vector<float> got = Read(*c.rewritten, out);
      const std::vector<float> want = Read(*c.plain, out);
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(
          0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
          << out;
    }
  }
}

// Reshapes are not run: their results are their operands' buffers, and
// those live until the results' last readers — also through a reshape of
// a reshape and a transpose folded into a matmul, and of an input — with
// the same values as unfused, where every reshape copies. A reshape a graph
// output reads still runs.
TEST(Executable, ReshapesAreReadInPlace) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({4, 6}));
  ir::ValueId w = b.Input("w", F32({6, 4}));
  ir::Attrs to_3x8, to_8x3, to_24, swap;
  to_3x8.Set("newShape", std::vector<int64_t>{3, 8});
  to_8x3.Set("newShape", std::vector<int64_t>{8, 3});
  to_24.Set("newShape", std::vector<int64_t>{24});
  swap.Set("permutation", std::vector<int64_t>{1, 0});
  ir::ValueId r = (*b.Op(ir::OpKind::kRelu, {x}))[0];
  ir::ValueId a = (*b.Op(ir::OpKind::kReshape, {r}, to_3x8))[0];
  ir::ValueId a2 = (*b.Op(ir::OpKind::kReshape, {a}, to_8x3))[0];
  ir::ValueId at = (*b.Op(ir::OpKind::kTranspose, {a2}, swap))[0];  // [3, 8]
  ir::ValueId m = (*b.Op(ir::OpKind::kMatmul, {at, a2}))[0];        // [3, 3]
  // Many operations later the first reshape is read again: its buffer (the
  // relu's) must not have been reused meanwhile.
  ir::ValueId v = (*b.Op(ir::OpKind::kNeg, {x}))[0];  // [4, 6], as the relu's
  for (int i = 0; i < 6; ++i) v = (*b.Op(ir::OpKind::kSigmoid, {v}))[0];
  ir::ValueId v3x8 = (*b.Op(ir::OpKind::kReshape, {v}, to_3x8))[0];
  ir::ValueId late = (*b.Op(ir::OpKind::kAdd, {a, v3x8}))[0];  // after them
  v = (*b.Op(ir::OpKind::kMatmul, {v, w}))[0];
  b.Output("m", m);
  b.Output("v", v);
  b.Output("late", late);
  b.Output("flat", (*b.Op(ir::OpKind::kReshape, {late}, to_24))[0]);
  b.Output("input", (*b.Op(ir::OpKind::kReshape, {x}, to_24))[0]);
  ir::ValueId x3x8 = (*b.Op(ir::OpKind::kReshape, {x}, to_3x8))[0];
  b.Output("fromInput", (*b.Op(ir::OpKind::kAdd, {x3x8, a}))[0]);
  const ir::Graph graph = b.Finish();
  Compiled c = RewrittenAndPlain(graph);
  ASSERT_TRUE(c.rewritten && c.plain);
  // The two graph outputs read: "flat" and "input".
  EXPECT_EQ(KernelsNamed(*c.rewritten, "reshape"), 2);
  std::vector<float> xs(24), ws(24);
  for (int i = 0; i < 24; ++i) {
    xs[i] = static_cast<float>((i * 7) % 11 - 4);
    ws[i] = static_cast<float>((i * 5) % 9 - 4) / 8;
  }
  for (Executable* exe : {c.rewritten.get(), c.plain.get()}) {
    Write(*exe, "x", xs);
    Write(*exe, "w", ws);
    ASSERT_TRUE(exe->Run().ok());
  }
  for (const char* out : {"m", "v", "late", "flat", "input", "fromInput"}) {
    EXPECT_EQ(Read(*c.rewritten, out), Read(*c.plain, out)) << out;
  }
}

// A carried input is updated in place during the run (the group computing
// its new value writes its buffer): a reshape of it read after that still
// copies it first, and reads the old values.
TEST(Executable, ReshapesOfCarriedInputsStillCopy) {
  ir::GraphBuilder b;
  ir::ValueId s = b.Input("s", F32({2, 3}));
  ir::Attrs to_6;
  to_6.Set("newShape", std::vector<int64_t>{6});
  ir::ValueId flat = (*b.Op(ir::OpKind::kReshape, {s}, to_6))[0];
  ir::ValueId next = (*b.Op(ir::OpKind::kNeg, {s}))[0];
  next = (*b.Op(ir::OpKind::kAbs, {next}))[0];
  b.Output("new", next);
  // Read after the new value is computed: the sum of the old values.
  ir::Attrs all;
  all.Set("axes", std::vector<int64_t>{0});
  ir::ValueId total = (*b.Op(ir::OpKind::kReduceSum, {flat}, all))[0];
  b.Output("total", total);
  CompileOptions options;
  options.carries = {{"new", "s"}};
  Compiled c = RewrittenAndPlain(b.Finish(), options);
  ASSERT_TRUE(c.rewritten && c.plain);
  EXPECT_EQ(KernelsNamed(*c.rewritten, "reshape"), 1);
  for (Executable* exe : {c.rewritten.get(), c.plain.get()}) {
    Write(*exe, "s", {1, -2, 3, -4, 5, -6});
    ASSERT_TRUE(exe->Run().ok());
    EXPECT_THAT(Read(*exe, "total"), ElementsAre(-3));
  }
}

// y = x + p, where p is read from the caller's memory.
TEST(Executable, SharedInputsAreReadWhereTheCallerKeepsThem) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({3}));
  ir::ValueId p = b.Input("p", F32({3}));
  b.Output("y", (*b.Op(ir::OpKind::kAdd, {x, p}))[0]);
  ir::Graph graph = b.Finish();
  std::vector<float> mine = {10, 20, 30};
  CompileOptions options;
  options.shared_inputs = {{"p",
                            reinterpret_cast<const std::byte*>(mine.data()),
                            mine.size() * sizeof(float)}};
  auto exe = Cpu()->Compile(graph, options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->input((*exe)->FindInput("p")).data(),
            reinterpret_cast<std::byte*>(mine.data()));
  Write(**exe, "x", {1, 2, 3});
  ASSERT_TRUE((*exe)->Run().ok());
  EXPECT_THAT(Read(**exe, "y"), ElementsAre(11, 22, 33));
  mine = {-1, -2, -3};  // the owner changes it between runs
  ASSERT_TRUE((*exe)->Run().ok());
  EXPECT_THAT(Read(**exe, "y"), ElementsAre(0, 0, 0));
  // The wrong size, or an input also carried, is refused.
  options.shared_inputs[0].size = 8;
  EXPECT_THAT(std::string(Cpu()->Compile(graph, options).status().message()),
              HasSubstr("shared input 'p' has 8 bytes; the graph's has 12"));
  options.shared_inputs[0].size = 12;
  options.carries = {{"y", "p"}};
  EXPECT_THAT(std::string(Cpu()->Compile(graph, options).status().message()),
              HasSubstr("cannot be both shared and carried"));
}

}  // namespace
}  // namespace webnnm::backends::cpu
