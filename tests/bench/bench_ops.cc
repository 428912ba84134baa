// webnnm-bench ops: our executables next to oneDNN called directly on the
// same shapes, so the overhead of our layer shows (docs/backends.md).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <unordered_map>

#include <dnnl.hpp>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "engine/ir/graph_builder.h"
#include "tests/bench/bench.h"

namespace webnnm::bench {
namespace {

using dnnl::memory;

// Median seconds per call of `f` over samples of at least 50 ms each (the
// clock read every `batch` calls: reading it costs ~30 ns here, more than
// a small kernel).
double TimePerCall(const std::function<void()>& f) {
  for (int i = 0; i < 3; ++i) f();  // warm up
  std::vector<double> samples;
  int batch = 1;
  for (int s = 0; s < 7; ++s) {
    int calls = 0;
    auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      for (int i = 0; i < batch; ++i) f();
      calls += batch;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              start)
                    .count();
      if (elapsed < 1e-4 && batch < 4096) batch *= 2;  // calls of ns
    } while (elapsed < 0.05);
    samples.push_back(elapsed / calls);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

ir::TensorType F32(std::vector<int64_t> shape) {
  ir::TensorType t;
  t.shape = std::move(shape);
  return t;
}

void Fill(std::span<std::byte> bytes) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  float* p = reinterpret_cast<float*>(bytes.data());
  for (size_t i = 0; i < bytes.size() / 4; ++i) p[i] = u(rng);
}

// The backend our side runs on (--backend); the oneDNN side is the CPU.
std::string g_backend = "cpu";

// Prints a line and returns true when `seconds` is a skipped workload's.
bool Skipped(double seconds) { return std::isnan(seconds); }

// Times one graph on the chosen backend. A graph the backend cannot
// compile is fatal on the CPU; elsewhere it is reported as skipped (NaN).
double TimeGraph(ir::Graph graph, int threads, bool fusion = true,
                 bool reference = false) {
  auto backend = backends::CreateBackend(g_backend);
  if (!backend.ok()) {
    std::cerr << "webnnm-bench: " << backend.status().message() << "\n";
    std::exit(1);
  }
  backends::CompileOptions options;
  options.threads = threads;
  options.fusion = fusion;
  options.reference_kernels = reference;
  auto exe = (*backend)->Compile(graph, options);
  if (!exe.ok() && g_backend != "cpu" && absl::IsUnimplemented(exe.status())) {
    nlohmann::ordered_json line = {{"bench", "ops"},
                                   {"backend", g_backend},
                                   {"skipped", exe.status().message()}};
    std::cout << line.dump() << std::endl;
    return std::nan("");
  }
  if (!exe.ok()) {
    std::cerr << "webnnm-bench: " << exe.status().message() << "\n";
    std::exit(1);
  }
  for (size_t i = 0; i < (*exe)->inputs().size(); ++i) Fill((*exe)->input(i));
  return TimePerCall([&] { (void)(*exe)->Run(); });
}

// Times one oneDNN primitive over fresh plain buffers.
double TimePrimitive(const dnnl::primitive& p,
                     std::unordered_map<int, memory> args, dnnl::stream& s) {
  for (auto& [arg, m] : args) {
    size_t bytes = m.get_desc().get_size();
    std::vector<std::byte> host(bytes);
    Fill(host);
    std::memcpy(m.get_data_handle(), host.data(), bytes);
  }
  return TimePerCall([&] {
    p.execute(s, args);
    s.wait();
  });
}

void Report(const std::string& workload, int threads, double flops, double ours,
            double direct) {
  if (Skipped(ours)) return;
  nlohmann::ordered_json line = {
      {"bench", "ops"},
      {"backend", g_backend},
      {"workload", workload},
      {"threads", threads},
      {"oursMicroseconds", ours * 1e6},
      {"onednnMicroseconds", direct * 1e6},
      {"oursGflops", flops / ours * 1e-9},
      {"onednnGflops", flops / direct * 1e-9},
      {"overheadPercent", (ours / direct - 1) * 100}};
  std::cout << line.dump() << std::endl;
}

void Matmul(int64_t m, int64_t k, int64_t n, int threads) {
  ir::GraphBuilder b;
  ir::ValueId a = b.Input("a", F32({m, k}));
  ir::ValueId w = b.Input("b", F32({k, n}));
  b.Output("y", (*b.Op(ir::OpKind::kMatmul, {a, w}))[0]);
  double ours = TimeGraph(b.Finish(), threads);

  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  memory::desc ad({m, k}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc bd({k, n}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc yd({m, n}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::matmul p(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, yd), e));
  double direct = TimePrimitive(p,
                                {{DNNL_ARG_SRC, memory(ad, e)},
                                 {DNNL_ARG_WEIGHTS, memory(bd, e)},
                                 {DNNL_ARG_DST, memory(yd, e)}},
                                s);
  Report("matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" +
             std::to_string(n),
         threads, 2.0 * m * k * n, ours, direct);
}

// A small CNN layer: 64 images of 1x28x28, 8 filters of 3x3.
void Conv(int threads) {
  const int64_t n = 64, c = 1, h = 28, o = 8, kh = 3, oh = 26;
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({n, c, h, h}));
  ir::ValueId f = b.Input("f", F32({o, c, kh, kh}));
  ir::ValueId bias = b.Input("bias", F32({o}));
  b.Output("y", (*b.Op(ir::OpKind::kConv2d, {x, f, bias}))[0]);
  double ours = TimeGraph(b.Finish(), threads);

  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  memory::desc xd({n, c, h, h}, memory::data_type::f32,
                  memory::format_tag::nchw);
  memory::desc fd({o, c, kh, kh}, memory::data_type::f32,
                  memory::format_tag::oihw);
  memory::desc bd({o}, memory::data_type::f32, memory::format_tag::a);
  memory::desc yd({n, o, oh, oh}, memory::data_type::f32,
                  memory::format_tag::nchw);
  dnnl::convolution_forward p(dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::convolution_direct, xd,
                                      fd, bd, yd, {1, 1}, {0, 0}, {0, 0},
                                      {0, 0}),
      e));
  double direct = TimePrimitive(p,
                                {{DNNL_ARG_SRC, memory(xd, e)},
                                 {DNNL_ARG_WEIGHTS, memory(fd, e)},
                                 {DNNL_ARG_BIAS, memory(bd, e)},
                                 {DNNL_ARG_DST, memory(yd, e)}},
                                s);
  Report("conv2d 64x1x28x28 * 8x1x3x3", threads,
         2.0 * n * o * oh * oh * c * kh * kh, ours, direct);
}

// softmax over the last axis of [rows, cols]; about 5 operations per element.
void Softmax(int64_t rows, int64_t cols, int threads) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({rows, cols}));
  ir::Attrs attrs;
  attrs.Set("axis", int64_t{1});
  b.Output("y", (*b.Op(ir::OpKind::kSoftmax, {x}, attrs))[0]);
  double ours = TimeGraph(b.Finish(), threads);

  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  memory::desc d({rows, cols}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::softmax_forward p(dnnl::softmax_forward::primitive_desc(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, d, 1),
      e));
  double direct = TimePrimitive(
      p, {{DNNL_ARG_SRC, memory(d, e)}, {DNNL_ARG_DST, memory(d, e)}}, s);
  Report("softmax " + std::to_string(rows) + "x" + std::to_string(cols),
         threads, 5.0 * rows * cols, ours, direct);
}

// reduceSum over the last axis of [rows, cols]; one addition per element.
void Reduce(int64_t rows, int64_t cols, int threads) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({rows, cols}));
  ir::Attrs attrs;
  attrs.Set("axes", std::vector<int64_t>{1});
  b.Output("y", (*b.Op(ir::OpKind::kReduceSum, {x}, attrs))[0]);
  double ours = TimeGraph(b.Finish(), threads);

  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  memory::desc xd({rows, cols}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc yd({rows, 1}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::reduction p(dnnl::reduction::primitive_desc(
      dnnl::reduction::desc(dnnl::algorithm::reduction_sum, xd, yd, 0, 0), e));
  double direct = TimePrimitive(
      p, {{DNNL_ARG_SRC, memory(xd, e)}, {DNNL_ARG_DST, memory(yd, e)}}, s);
  Report("reduceSum " + std::to_string(rows) + "x" + std::to_string(cols),
         threads, 1.0 * rows * cols, ours, direct);
}

// A dense layer, relu(x·w + b), or a CNN layer, relu(conv2d(x, f) + b):
// fused (one kernel with post-ops), unfused (three kernels), and oneDNN
// called directly with the same post-ops.
void FusedLayer(bool conv, int threads) {
  const int64_t m = 64, k = 784, n = 128;                 // dense
  const int64_t in = 64, h = 28, o = 8, kh = 3, oh = 26;  // conv
  auto build = [&] {
    ir::GraphBuilder b;
    ir::ValueId y, bias;
    if (conv) {
      ir::ValueId x = b.Input("x", F32({in, 1, h, h}));
      ir::ValueId f = b.Input("f", F32({o, 1, kh, kh}));
      bias = b.Input("bias", F32({o, 1, 1}));
      y = (*b.Op(ir::OpKind::kConv2d, {x, f}))[0];
    } else {
      ir::ValueId x = b.Input("x", F32({m, k}));
      ir::ValueId w = b.Input("w", F32({k, n}));
      bias = b.Input("bias", F32({n}));
      y = (*b.Op(ir::OpKind::kMatmul, {x, w}))[0];
    }
    y = (*b.Op(ir::OpKind::kAdd, {y, bias}))[0];
    b.Output("y", (*b.Op(ir::OpKind::kRelu, {y}))[0]);
    return b.Finish();
  };
  double fused = TimeGraph(build(), threads, true);
  double unfused = TimeGraph(build(), threads, false);

  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  dnnl::post_ops ops;
  dnnl::primitive_attr attr;
  double direct, flops;
  std::string workload;
  if (conv) {
    memory::desc xd({in, 1, h, h}, f32, tag::nchw);
    memory::desc fd({o, 1, kh, kh}, f32, tag::oihw);
    memory::desc yd({in, o, oh, oh}, f32, tag::nchw);
    memory::desc bd({1, o, 1, 1}, f32, tag::nchw);
    ops.append_binary(dnnl::algorithm::binary_add, bd);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0, 0);
    attr.set_post_ops(ops);
    dnnl::convolution_forward p(dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::convolution_direct, xd,
                                        fd, yd, {1, 1}, {0, 0}, {0, 0}),
        attr, e));
    direct = TimePrimitive(
        p,
        {{DNNL_ARG_SRC, memory(xd, e)},
         {DNNL_ARG_WEIGHTS, memory(fd, e)},
         {DNNL_ARG_DST, memory(yd, e)},
         {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, memory(bd, e)}},
        s);
    flops = 2.0 * in * o * oh * oh * kh * kh;
    workload = "conv2d+add+relu 64x1x28x28 * 8x1x3x3";
  } else {
    memory::desc xd({m, k}, f32, tag::ab), wd({k, n}, f32, tag::ab);
    memory::desc yd({m, n}, f32, tag::ab), bd({1, n}, f32, tag::ab);
    ops.append_binary(dnnl::algorithm::binary_add, bd);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0, 0);
    attr.set_post_ops(ops);
    dnnl::matmul p(
        dnnl::matmul::primitive_desc(dnnl::matmul::desc(xd, wd, yd), attr, e));
    direct = TimePrimitive(
        p,
        {{DNNL_ARG_SRC, memory(xd, e)},
         {DNNL_ARG_WEIGHTS, memory(wd, e)},
         {DNNL_ARG_DST, memory(yd, e)},
         {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, memory(bd, e)}},
        s);
    flops = 2.0 * m * k * n;
    workload = "matmul+add+relu 64x784x128";
  }
  if (Skipped(fused)) return;
  nlohmann::ordered_json line = {
      {"bench", "ops"},
      {"backend", g_backend},
      {"workload", workload},
      {"threads", threads},
      {"oursMicroseconds", fused * 1e6},
      {"unfusedMicroseconds", unfused * 1e6},
      {"onednnMicroseconds", direct * 1e6},
      {"oursGflops", flops / fused * 1e-9},
      {"onednnGflops", flops / direct * 1e-9},
      {"overheadPercent", (fused / direct - 1) * 100},
      {"fusionSpeedup", unfused / fused}};
  std::cout << line.dump() << std::endl;
}

// lstm (or gru) over `steps` steps (forward, no peepholes, default
// activations, gru with resetAfter), next to oneDNN's LSTM (linear-before-
// reset GRU) primitive; 2 * gates * hidden * (input + hidden) flops per
// batch row and step for the two products, which dominate.
void Recurrent(bool lstm, int64_t steps, int64_t batch, int64_t input,
               int64_t hidden, int threads) {
  const int64_t gates = lstm ? 4 : 3;
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", F32({steps, batch, input}));
  ir::ValueId w = b.Input("w", F32({1, gates * hidden, input}));
  ir::ValueId r = b.Input("r", F32({1, gates * hidden, hidden}));
  ir::ValueId bias = b.Input("bias", F32({1, gates * hidden}));
  ir::Attrs attrs;
  attrs.Set("steps", steps);
  attrs.Set("hiddenSize", hidden);
  attrs.Set("returnSequence", true);
  std::vector<ir::ValueId> operands = {x, w, r, bias};
  auto results =
      b.Op(lstm ? ir::OpKind::kLstm : ir::OpKind::kGru, operands, attrs);
  if (!results.ok()) {
    std::cerr << "webnnm-bench: " << results.status().message() << "\n";
    std::exit(1);
  }
  for (size_t i = 0; i < results->size(); ++i) {
    b.Output("y" + std::to_string(i), (*results)[i]);
  }
  double ours = TimeGraph(b.Finish(), threads);

  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  memory::desc src({steps, batch, input}, f32, tag::tnc);
  memory::desc dst({steps, batch, hidden}, f32, tag::tnc);
  memory::desc state({1, 1, batch, hidden}, f32, tag::ldnc);
  memory::desc wl({1, 1, input, gates, hidden}, f32, tag::any);
  memory::desc wi({1, 1, hidden, gates, hidden}, f32, tag::any);
  memory::desc bd({1, 1, 4, hidden}, f32, tag::ldgo);  // lbr gru: 4 too
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto dir = dnnl::rnn_direction::unidirectional_left2right;
  dnnl::primitive_desc pd =
      lstm ? dnnl::primitive_desc(dnnl::lstm_forward::primitive_desc(
                 dnnl::lstm_forward::desc(prop, dir, src, memory::desc(),
                                          memory::desc(), wl, wi, bd, dst,
                                          state, state),
                 e))
           : dnnl::primitive_desc(dnnl::lbr_gru_forward::primitive_desc(
                 dnnl::lbr_gru_forward::desc(prop, dir, src, memory::desc(), wl,
                                             wi, bd, dst, state),
                 e));
  dnnl::primitive p(pd.get());
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC_LAYER, memory(src, e)},
      {DNNL_ARG_WEIGHTS_LAYER,
       memory(pd.query_md(dnnl::query::weights_md, 0), e)},
      {DNNL_ARG_WEIGHTS_ITER,
       memory(pd.query_md(dnnl::query::weights_md, 1), e)},
      {DNNL_ARG_BIAS, memory(bd, e)},
      {DNNL_ARG_DST_LAYER, memory(dst, e)},
      {DNNL_ARG_DST_ITER, memory(state, e)},
      {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), e)}};
  if (lstm) args[DNNL_ARG_DST_ITER_C] = memory(state, e);
  double direct = TimePrimitive(p, args, s);
  Report(std::string(lstm ? "lstm " : "gru ") + std::to_string(steps) + "x" +
             std::to_string(batch) + "x" + std::to_string(input) + " hidden " +
             std::to_string(hidden),
         threads, 2.0 * gates * steps * batch * hidden * (input + hidden), ours,
         direct);
}

// Tiny element-wise work, as in a training step of a small model: tanh(x + b)
// on [rows, cols], through our default kernels and through the C++ kernels
// only (reported as the "onednn" side: this line is about per-call cost).
void Tiny(int64_t rows, int64_t cols, int threads) {
  auto build = [&] {
    ir::GraphBuilder b;
    ir::ValueId x = b.Input("x", F32({rows, cols}));
    ir::ValueId bias = b.Input("b", F32({cols}));
    ir::ValueId y = (*b.Op(ir::OpKind::kAdd, {x, bias}))[0];
    b.Output("y", (*b.Op(ir::OpKind::kTanh, {y}))[0]);
    return b.Finish();
  };
  double ours = TimeGraph(build(), threads);
  double plain = TimeGraph(build(), threads, true, /*reference=*/true);
  if (Skipped(ours)) return;
  nlohmann::ordered_json line = {
      {"bench", "ops"},
      {"backend", g_backend},
      {"workload",
       "add+tanh " + std::to_string(rows) + "x" + std::to_string(cols)},
      {"threads", threads},
      {"oursMicroseconds", ours * 1e6},
      {"referenceKernelsMicroseconds", plain * 1e6}};
  std::cout << line.dump() << std::endl;
}

// The operations of a small model's training step (the iris step's
// shapes, 16 rows of 3 or 4 values) one at a time: a call's whole cost,
// the executable's own included, next to the reference kernels'.
void SmallStep(int threads) {
  using K = ir::OpKind;
  struct Case {
    std::string name;
    std::function<void(ir::GraphBuilder&)> build;
  };
  auto input = [](ir::GraphBuilder& b, const char* name,
                  std::vector<int64_t> shape) {
    return b.Input(name, F32(std::move(shape)));
  };
  auto op = [](ir::GraphBuilder& b, K kind, std::vector<ir::ValueId> in,
               const ir::Attrs& attrs = {}) {
    return (*b.Op(kind, std::move(in), attrs))[0];
  };
  auto transposed = [&](ir::GraphBuilder& b, ir::ValueId v) {
    ir::Attrs perm;
    perm.Set("permutation", std::vector<int64_t>{1, 0});
    return op(b, K::kTranspose, {v}, perm);
  };
  auto axes = [](std::vector<int64_t> a) {
    ir::Attrs attrs;
    attrs.Set("axes", std::move(a));
    return attrs;
  };
  ir::Attrs last_axis;
  last_axis.Set("axis", int64_t{1});
  const std::vector<Case> cases = {
      {"matmul 16x4 4x3",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kMatmul,
                          {input(b, "x", {16, 4}), input(b, "w", {4, 3})}));
       }},
      {"matmul x^T dy 4x16 16x3",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kMatmul,
                          {transposed(b, input(b, "x", {16, 4})),
                           input(b, "dy", {16, 3})}));
       }},
      {"matmul dy w^T 16x3 3x4",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kMatmul,
                          {input(b, "dy", {16, 3}),
                           transposed(b, input(b, "w", {4, 3}))}));
       }},
      {"add 16x3 + 3",
       [&](ir::GraphBuilder& b) {
         b.Output("y",
                  op(b, K::kAdd, {input(b, "x", {16, 3}), input(b, "b", {3})}));
       }},
      {"softmax 16x3",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kSoftmax, {input(b, "x", {16, 3})}, last_axis));
       }},
      {"argMax 16x3",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kArgMax, {input(b, "x", {16, 3})}, last_axis));
       }},
      {"reduceLogSumExp 16x3 axis 1",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kReduceLogSumExp, {input(b, "x", {16, 3})},
                          axes({1})));
       }},
      {"reduceSum 16x3 axis 0",
       [&](ir::GraphBuilder& b) {
         b.Output("y",
                  op(b, K::kReduceSum, {input(b, "x", {16, 3})}, axes({0})));
       }},
      {"reduceSum 16x3 axis 1",
       [&](ir::GraphBuilder& b) {
         b.Output("y",
                  op(b, K::kReduceSum, {input(b, "x", {16, 3})}, axes({1})));
       }},
      {"exp 16x3",
       [&](ir::GraphBuilder& b) {
         b.Output("y", op(b, K::kExp, {input(b, "x", {16, 3})}));
       }},
  };
  for (const Case& c : cases) {
    auto graph = [&] {
      ir::GraphBuilder b;
      c.build(b);
      return b.Finish();
    };
    const double ours = TimeGraph(graph(), threads);
    const double plain = TimeGraph(graph(), threads, true, /*reference=*/true);
    if (Skipped(ours)) continue;
    nlohmann::ordered_json line = {
        {"bench", "ops"},
        {"backend", g_backend},
        {"workload", "small step: " + c.name},
        {"threads", threads},
        {"oursNanoseconds", ours * 1e9},
        {"referenceKernelsNanoseconds", plain * 1e9}};
    std::cout << line.dump() << std::endl;
  }
}

}  // namespace

int RunOps(int threads, const std::string& backend) {
  g_backend = backend;
  omp_set_num_threads(threads);
  Matmul(64, 784, 128, threads);
  Matmul(1024, 1024, 1024, threads);
  Conv(threads);
  Softmax(64, 1000, threads);
  Reduce(256, 4096, threads);
  FusedLayer(/*conv=*/false, threads);
  FusedLayer(/*conv=*/true, threads);
  Tiny(16, 10, threads);
  Tiny(64, 128, threads);
  Tiny(256, 1024, threads);
  SmallStep(threads);
  Recurrent(/*lstm=*/true, 50, 32, 64, 128, threads);
  Recurrent(/*lstm=*/false, 50, 32, 64, 128, threads);
  return 0;
}

}  // namespace webnnm::bench
