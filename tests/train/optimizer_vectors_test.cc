// Adam and AdamW against torch.optim's own steps (vectors/
// optimizer_vectors.json, from Debian's python3-torch): each case's update
// graph (engine/train/optimizer.h) runs 100 steps on the CPU and the Vulkan
// backend, fed the case's gradients, learning rates and the bias
// corrections the host computes (AdamBias), and after every step the
// parameter and both moments equal PyTorch's within 1e-6.
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "engine/ir/graph_builder.h"
#include "engine/ir/graph_ops.h"
#include "engine/ir/rewriter.h"
#include "engine/train/optimizer.h"

namespace webnnm::train {
namespace {

using ir::TensorType;
using ir::ValueId;

constexpr double kTolerance = 1e-6;

nlohmann::json Vectors() {
  std::ifstream in(WEBNNM_SOURCE_DIR
                   "/tests/train/vectors/optimizer_vectors.json");
  return nlohmann::json::parse(in);
}

std::vector<float> Floats(const nlohmann::json& values) {
  std::vector<float> out;
  for (double v : values) out.push_back(static_cast<float>(v));
  return out;
}

void Write(backends::Executable& exe, const std::string& name,
           const std::vector<float>& values) {
  const int i = exe.FindInput(name);
  ASSERT_GE(i, 0) << name;
  ASSERT_EQ(exe.inputs()[i].byte_size, values.size() * sizeof(float)) << name;
  std::memcpy(exe.input(i).data(), values.data(),
              values.size() * sizeof(float));
}

std::vector<float> Read(backends::Executable& exe, const std::string& name) {
  const int i = exe.FindOutput(name);
  std::vector<float> out;
  if (i < 0) return out;
  auto bytes = exe.output(i);
  out.resize(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// The largest |a - b| over the elements (infinity when the sizes differ).
double MaxDifference(const std::vector<float>& a,
                     const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double most = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    most = std::max(most, std::fabs(double{a[i]} - b[i]));
  }
  return most;
}

void RunCase(const nlohmann::json& c, const std::string& backend_name) {
  SCOPED_TRACE(c["name"].get<std::string>() + " on " + backend_name);
  const OptimizerKind kind = c["optimizer"] == "adam" ? OptimizerKind::kAdam
                                                      : OptimizerKind::kAdamW;
  OptimizerParams p = DefaultOptimizerParams(kind);
  p.beta1 = c["beta1"];
  p.beta2 = c["beta2"];
  p.epsilon = c["epsilon"];
  p.weight_decay = c["weightDecay"];
  const std::vector<int64_t> shape = c["shape"];
  std::vector<int64_t> stacked = shape;
  stacked.insert(stacked.begin(), MomentumSlots(kind));
  const TensorType f32{.dtype = ir::DType::kFloat32, .shape = shape};
  const TensorType scalar{.dtype = ir::DType::kFloat32, .shape = {}};

  ir::GraphBuilder b;
  ValueId w = b.Input("w", f32);
  ValueId m = b.Input("m", {.dtype = ir::DType::kFloat32, .shape = stacked});
  ValueId g = b.Input("g", f32);
  UpdateScalars scalars{.lr = b.Input("lr", scalar),
                        .adam_bias1 = b.Input("bias1", scalar),
                        .adam_bias2_sqrt = b.Input("bias2", scalar)};
  ir::Graph graph = b.Finish();
  ir::Limits limits;
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "test");
  absl::StatusOr<Update> u =
      BuildUpdate(ops, kind, p, w, m, g, scalars, c["lrm"], ir::kNoValue);
  ASSERT_TRUE(u.ok()) << u.status();
  ops.Output("w", u->weight);
  ops.Output("m", u->momentum);
  absl::StatusOr<std::unique_ptr<backends::Backend>> backend =
      backends::CreateBackend(backend_name);
  ASSERT_TRUE(backend.ok()) << backend.status();
  absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
      (*backend)->Compile(graph, {});
  ASSERT_TRUE(exe.ok()) << exe.status();

  std::vector<float> weight = Floats(c["initial"]);
  std::vector<float> state(weight.size() * 2, 0.0f);
  int64_t t = 0;
  for (const nlohmann::json& step : c["steps"]) {
    ++t;
    const AdamBiasValues bias = AdamBias(p, t);
    Write(**exe, "w", weight);
    Write(**exe, "m", state);
    Write(**exe, "g", Floats(step["gradient"]));
    Write(**exe, "lr", {static_cast<float>(step["lr"].get<double>())});
    Write(**exe, "bias1", {static_cast<float>(bias.bias1)});
    Write(**exe, "bias2", {static_cast<float>(bias.bias2_sqrt)});
    ASSERT_TRUE((*exe)->Run().ok());
    weight = Read(**exe, "w");
    state = Read(**exe, "m");
    const size_t n = weight.size();
    const std::vector<float> m1(state.begin(), state.begin() + n);
    const std::vector<float> v1(state.begin() + n, state.end());
    ASSERT_LE(MaxDifference(weight, step["weight"]), kTolerance)
        << "the parameter after step " << t;
    ASSERT_LE(MaxDifference(m1, step["m"]), kTolerance)
        << "the first moment after step " << t;
    ASSERT_LE(MaxDifference(v1, step["v"]), kTolerance)
        << "the second moment after step " << t;
  }
  EXPECT_EQ(t, 100);
}

TEST(OptimizerVectors, AdamAndAdamWStepAsPyTorchOnTheCpu) {
  const nlohmann::json vectors = Vectors();
  ASSERT_EQ(vectors["cases"].size(), 4u);
  for (const nlohmann::json& c : vectors["cases"]) RunCase(c, "cpu");
}

TEST(OptimizerVectors, AdamAndAdamWStepAsPyTorchOnVulkan) {
  const nlohmann::json vectors = Vectors();
  ASSERT_EQ(vectors["cases"].size(), 4u);
  for (const nlohmann::json& c : vectors["cases"]) RunCase(c, "vulkan");
}

TEST(OptimizerVectors, BiasCorrections) {
  const OptimizerParams p = DefaultOptimizerParams(OptimizerKind::kAdam);
  EXPECT_EQ(p.beta2, 0.999);
  EXPECT_EQ(p.epsilon, 1e-8);
  EXPECT_EQ(p.weight_decay, 0);
  EXPECT_EQ(DefaultOptimizerParams(OptimizerKind::kAdamW).weight_decay, 0.01);
  const AdamBiasValues first = AdamBias(p, 1);
  EXPECT_NEAR(first.bias1, 0.1, 1e-15);
  EXPECT_NEAR(first.bias2_sqrt, std::sqrt(0.001), 1e-15);
  const AdamBiasValues late = AdamBias(p, 100000);
  EXPECT_NEAR(late.bias1, 1, 1e-12);
  EXPECT_EQ(MomentumSlots(OptimizerKind::kAdamW), 2);
  EXPECT_EQ(MomentumSlots(OptimizerKind::kRLion), 1);
}

}  // namespace
}  // namespace webnnm::train
