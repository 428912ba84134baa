// CompileOptions::carries on every backend: outputs become inputs for the
// next run without the host (on Vulkan, ping/pong between two device
// ranges), what the host writes into a carried input replaces the carried
// value, Current() reads it back, and bad carries are clear errors.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends {
namespace {

constexpr int kN = 5;

std::vector<float> Floats(std::span<const std::byte> bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

void Write(Executable& exe, std::string_view name,
           const std::vector<float>& v) {
  std::span<std::byte> to = exe.input(exe.FindInput(name));
  ASSERT_EQ(to.size(), v.size() * sizeof(float));
  std::memcpy(to.data(), v.data(), to.size());
}

ir::Graph StepGraph() {
  // w' = w + x, m' = w - m; sum = Σ w' (read by the host); "old" = w.
  ir::GraphBuilder b;
  ir::TensorType t{ir::DType::kFloat32, {kN}};
  ir::ValueId w = b.Input("w", t);
  ir::ValueId m = b.Input("m", t);
  ir::ValueId x = b.Input("x", t);
  ir::ValueId new_w = (*b.Op(ir::OpKind::kAdd, {w, x}))[0];
  ir::ValueId new_m = (*b.Op(ir::OpKind::kSub, {w, m}))[0];
  ir::Attrs all;
  all.Set("axes", std::vector<int64_t>{0});
  ir::ValueId sum = (*b.Op(ir::OpKind::kReduceSum, {new_w}, all))[0];
  b.Output("newW", new_w);
  b.Output("newM", new_m);
  b.Output("sum", sum);
  b.Output("old", w);
  b.Output("sameM", m);
  return b.Finish();
}

class Carries : public testing::TestWithParam<std::string> {
 protected:
  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const ir::Graph& graph, std::vector<CarrySpec> carries) {
    absl::StatusOr<std::unique_ptr<Backend>> backend =
        CreateBackend(GetParam());
    if (!backend.ok()) return backend.status();
    CompileOptions options;
    options.carries = std::move(carries);
    return (*backend)->Compile(graph, options);
  }
};

TEST_P(Carries, OutputsBecomeInputsWithoutTheHost) {
  auto exe = Compile(StepGraph(), {{"newW", "w"}, {"newM", "m"}});
  ASSERT_TRUE(exe.ok()) << exe.status();
  Executable& e = **exe;
  std::vector<float> w = {1, 2, 3, 4, 5}, m(kN, 0.0f);
  Write(e, "w", w);
  Write(e, "m", m);
  for (int run = 0; run < 7; ++run) {
    if (run == 4) {  // the host replaces the carried value
      w = {-1, 0, 1, 0, -1};
      Write(e, "w", w);
    }
    std::vector<float> x(kN);
    for (int i = 0; i < kN; ++i) x[i] = static_cast<float>(run * 10 + i);
    Write(e, "x", x);
    const std::vector<float> old = w;
    float sum = 0;
    for (int i = 0; i < kN; ++i) {
      m[i] = w[i] - m[i];
      w[i] += x[i];
      sum += w[i];
    }
    ASSERT_TRUE(e.Run().ok()) << "run " << run;
    EXPECT_EQ(Floats(e.output(e.FindOutput("sum")))[0], sum) << "run " << run;
    EXPECT_EQ(Floats(e.output(e.FindOutput("old"))), old) << "run " << run;
    EXPECT_TRUE(e.output(e.FindOutput("newW")).empty());
    EXPECT_TRUE(e.output(e.FindOutput("newM")).empty());
    if (run % 3 != 1) {  // reading back changes nothing
      auto current_w = e.Current(e.FindInput("w"));
      ASSERT_TRUE(current_w.ok()) << current_w.status();
      EXPECT_EQ(Floats(*current_w), w) << "run " << run;
      auto current_m = e.Current(e.FindInput("m"));
      ASSERT_TRUE(current_m.ok()) << current_m.status();
      EXPECT_EQ(Floats(*current_m), m) << "run " << run;
    }
  }
}

TEST_P(Carries, AnOutputThatIsItsInputStays) {
  auto exe = Compile(StepGraph(), {{"sameM", "m"}});
  ASSERT_TRUE(exe.ok()) << exe.status();
  Executable& e = **exe;
  const std::vector<float> m = {9, 8, 7, 6, 5};
  Write(e, "m", m);
  Write(e, "w", std::vector<float>(kN, 1.0f));
  Write(e, "x", std::vector<float>(kN, 1.0f));
  for (int run = 0; run < 3; ++run) ASSERT_TRUE(e.Run().ok());
  auto current = e.Current(e.FindInput("m"));
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_EQ(Floats(*current), m);
}

TEST_P(Carries, BadCarriesAreClearErrors) {
  struct Case {
    std::vector<CarrySpec> carries;
    std::string message;
  };
  const Case cases[] = {
      {{{"nothing", "w"}}, "no output of that name"},
      {{{"newW", "nothing"}}, "no input of that name"},
      {{{"sum", "w"}}, "type differs"},
      {{{"newW", "w"}, {"newM", "w"}}, "input is carried twice"},
      {{{"newW", "w"}, {"newW", "m"}}, "output is carried twice"},
      {{{"old", "m"}}, "not computed by the graph"},
  };
  for (const Case& c : cases) {
    auto exe = Compile(StepGraph(), c.carries);
    ASSERT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument)
        << c.message;
    EXPECT_NE(exe.status().message().find(c.message), std::string::npos)
        << exe.status();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Carries, testing::Values("cpu", "vulkan"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace webnnm::backends
