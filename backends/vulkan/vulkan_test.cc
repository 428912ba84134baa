// The Vulkan backend on the machine's device (lavapipe without a GPU):
// errors name their VkResult, device selection, tensors past one binding,
// a bad graph, and docs/backends.md's Vulkan column.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/vk_status.h"
#include "engine/base/strings.h"
#include "engine/ir/graph_builder.h"
#include "engine/ir/op_def.h"

namespace webnnm::backends::vulkan {
namespace {

TEST(VkStatus, NamesTheResult) {
  absl::Status lost = VkStatus(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
  EXPECT_EQ(lost.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(lost.message().find("vkQueueSubmit"), std::string::npos);
  EXPECT_NE(lost.message().find("VK_ERROR_DEVICE_LOST"), std::string::npos);
  EXPECT_EQ(VkStatus(VK_ERROR_OUT_OF_DEVICE_MEMORY, "x").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(VkStatus(VK_SUCCESS, "x").ok());
  EXPECT_EQ(VkResultName(static_cast<VkResult>(-12345)), "VkResult(-12345)");
}

// Sets WEBNNM_VULKAN_DEVICE for one scope.
class DeviceVariable {
 public:
  explicit DeviceVariable(const char* value) {
    setenv("WEBNNM_VULKAN_DEVICE", value, 1);
  }
  ~DeviceVariable() { unsetenv("WEBNNM_VULKAN_DEVICE"); }
};

TEST(Device, SelectionByIndexAndName) {
  absl::StatusOr<std::shared_ptr<Device>> any = Device::Open();
  ASSERT_TRUE(any.ok()) << any.status();
  const std::string name = (*any)->name();
  {
    DeviceVariable v("0");
    absl::StatusOr<std::shared_ptr<Device>> first = Device::Open();
    ASSERT_TRUE(first.ok()) << first.status();
  }
  {
    DeviceVariable v(name.substr(0, 4).c_str());
    absl::StatusOr<std::shared_ptr<Device>> named = Device::Open();
    ASSERT_TRUE(named.ok()) << named.status();
    EXPECT_EQ((*named)->name(), name);
  }
  {
    DeviceVariable v("99");
    absl::StatusOr<std::shared_ptr<Device>> none = Device::Open();
    EXPECT_EQ(none.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(none.status().message().find("WEBNNM_VULKAN_DEVICE=99"),
              std::string::npos);
  }
  {
    DeviceVariable v("no-such-gpu");
    absl::StatusOr<std::shared_ptr<Device>> none = Device::Open();
    EXPECT_EQ(none.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(none.status().message().find(name), std::string::npos)
        << "the error lists the devices there are: " << none.status();
  }
}

// `graph` compiled on backend `name` with default options (nullptr, and a
// failed expectation, where that fails).
std::unique_ptr<Executable> CompileOn(const char* name,
                                      const ir::Graph& graph) {
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend(name);
  EXPECT_TRUE(backend.ok()) << backend.status();
  if (!backend.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      (*backend)->Compile(graph, CompileOptions{});
  EXPECT_TRUE(exe.ok()) << name << ": " << exe.status();
  return exe.ok() ? *std::move(exe) : nullptr;
}

struct OnBoth {
  std::unique_ptr<Executable> cpu, vulkan;
};
OnBoth CompileOnBoth(const ir::Graph& graph) {
  return {CompileOn("cpu", graph), CompileOn("vulkan", graph)};
}

// Builds x -> op -> y on float32 [shape], runs it on vulkan.
struct Single {
  std::unique_ptr<Executable> exe;
  absl::Status status;
};
Single Compile(ir::OpKind op, std::vector<int64_t> shape,
               ir::Attrs attrs = {}) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", ir::TensorType{ir::DType::kFloat32, shape});
  absl::StatusOr<std::vector<ir::ValueId>> y = b.Op(op, {x}, attrs);
  if (!y.ok()) return {nullptr, y.status()};
  b.Output("y", (*y)[0]);
  ir::Graph graph = b.Finish();
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend("vulkan");
  if (!backend.ok()) return {nullptr, backend.status()};
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      (*backend)->Compile(graph, CompileOptions{});
  if (!exe.ok()) return {nullptr, exe.status()};
  return {*std::move(exe), absl::OkStatus()};
}

TEST(Limits, ElementWiseTensorsPastOneBindingAreSplit) {
  // 40M float32 = 160 MB: more than lavapipe's 128 MiB binding.
  const int64_t n = 40'000'000;
  Single s = Compile(ir::OpKind::kNeg, {n});
  ASSERT_TRUE(s.status.ok()) << s.status;
  float* x = reinterpret_cast<float*>(s.exe->input(0).data());
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000);
  ASSERT_TRUE(s.exe->Run().ok());
  const float* y = reinterpret_cast<const float*>(s.exe->output(0).data());
  for (int64_t i : {int64_t{0}, int64_t{12345}, n / 2, n - 1}) {
    EXPECT_EQ(y[i], -static_cast<float>(i % 1000)) << i;
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += y[i] != -x[i];
  EXPECT_EQ(wrong, 0);
}

TEST(Limits, OtherLargeTensorsAreAClearError) {
  ir::Attrs attrs;
  attrs.Set("axes", std::vector<int64_t>{0});
  Single s = Compile(ir::OpKind::kReduceSum, {40'000'000}, attrs);
  EXPECT_EQ(s.status.code(), absl::StatusCode::kResourceExhausted) << s.status;
  EXPECT_NE(s.status.message().find("reduceSum"), std::string::npos);
  EXPECT_NE(s.status.message().find("maxStorageBufferRange"),
            std::string::npos);
}

// Past one binding, operations whose rows along dimension 0 are
// independent run in chunks of rows (row_split.h): a softmax, a reduction
// keeping dimension 0 and a matrix product with a 136 MB first operand;
// and copies in chunks of the words they touch: a reshape, a slice and a
// transpose within rows.
TEST(Limits, RowsOfLargeTensorsAreSplit) {
  struct Case {
    ir::OpKind op;
    std::vector<ir::TensorType> inputs;
    ir::Attrs attrs;
  };
  ir::Attrs softmax, sum, reshape, slice, transpose;
  softmax.Set("axis", int64_t{1});
  sum.Set("axes", std::vector<int64_t>{1});
  reshape.Set("newShape", std::vector<int64_t>{1000, 34000});
  slice.Set("starts", std::vector<int64_t>{1, 1});
  slice.Set("sizes", std::vector<int64_t>{33998, 999});
  transpose.Set("permutation", std::vector<int64_t>{0, 2, 1});
  const ir::DType f32 = ir::DType::kFloat32;
  const std::vector<Case> cases = {
      {ir::OpKind::kSoftmax, {{f32, {17000, 2000}}}, softmax},
      {ir::OpKind::kReduceSum, {{f32, {1700, 20000}}}, sum},
      {ir::OpKind::kMatmul, {{f32, {34000, 1000}}, {f32, {1000, 8}}}, {}},
      {ir::OpKind::kReshape, {{f32, {34000, 1000}}}, reshape},
      {ir::OpKind::kSlice, {{f32, {34000, 1000}}}, slice},
      {ir::OpKind::kTranspose, {{f32, {2, 17000, 1000}}}, transpose},
  };
  auto cpu = CreateBackend("cpu");
  auto vulkan = CreateBackend("vulkan");
  ASSERT_TRUE(cpu.ok() && vulkan.ok());
  for (const Case& c : cases) {
    SCOPED_TRACE(ir::GetOp(c.op).name);
    ir::GraphBuilder b;
    std::vector<ir::ValueId> in;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      in.push_back(b.Input(StrCat("x", i), c.inputs[i]));
    }
    auto y = b.Op(c.op, in, c.attrs);
    ASSERT_TRUE(y.ok()) << y.status();
    b.Output("y", (*y)[0]);
    const ir::Graph graph = b.Finish();
    std::vector<std::vector<float>> results;
    for (Backend* backend : {cpu->get(), vulkan->get()}) {
      auto exe = backend->Compile(graph, CompileOptions{});
      ASSERT_TRUE(exe.ok()) << exe.status();
      for (size_t i = 0; i < in.size(); ++i) {
        float* x = reinterpret_cast<float*>((*exe)->input(i).data());
        const size_t n = (*exe)->input(i).size() / 4;
        for (size_t k = 0; k < n; ++k) {
          x[k] = static_cast<float>((k * 7919 + i) % 1000) / 1000.0f - 0.5f;
        }
      }
      ASSERT_TRUE((*exe)->Run().ok());
      const float* y = reinterpret_cast<const float*>((*exe)->output(0).data());
      results.emplace_back(y, y + (*exe)->output(0).size() / 4);
    }
    ASSERT_EQ(results[0].size(), results[1].size());
    int64_t wrong = 0;
    for (size_t k = 0; k < results[0].size(); ++k) {
      wrong += std::abs(results[0][k] - results[1][k]) >
               1e-4f * std::max(1.0f, std::abs(results[0][k]));
    }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(Compile, AnOutputMayBeAnInput) {
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", ir::TensorType{ir::DType::kFloat32, {3}});
  absl::StatusOr<std::vector<ir::ValueId>> r = b.Op(ir::OpKind::kRelu, {x});
  ASSERT_TRUE(r.ok()) << r.status();
  b.Output("same", x);
  b.Output("relu", (*r)[0]);
  ir::Graph graph = b.Finish();
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend("vulkan");
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto exe = (*backend)->Compile(graph, CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const float in[3] = {-1.5f, 0.0f, 2.5f};
  for (float scale : {1.0f, -2.0f}) {  // two runs: nothing stale
    float* x_data = reinterpret_cast<float*>((*exe)->input(0).data());
    for (int i = 0; i < 3; ++i) x_data[i] = in[i] * scale;
    ASSERT_TRUE((*exe)->Run().ok());
    const float* same = reinterpret_cast<const float*>(
        (*exe)->output((*exe)->FindOutput("same")).data());
    const float* relu = reinterpret_cast<const float*>(
        (*exe)->output((*exe)->FindOutput("relu")).data());
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(same[i], in[i] * scale);
      EXPECT_EQ(relu[i], std::max(0.0f, in[i] * scale));
    }
  }
}

// Every operation and data type the CPU backend runs, the Vulkan backend
// runs too (directly or widened), so that a model never depends on the
// backend it was written for.
TEST(Compile, EveryCpuOperationRunsOnVulkan) {
  auto cpu = CreateBackend("cpu");
  auto vulkan = CreateBackend("vulkan");
  ASSERT_TRUE(cpu.ok() && vulkan.ok());
  int pairs = 0;
  for (const ir::OpDef* op : ir::AllOps()) {
    for (int t = 0; t < ir::kNumDTypes; ++t) {
      const ir::DType dtype = static_cast<ir::DType>(t);
      if (!(*cpu)->Supports(op->kind, dtype)) continue;
      ++pairs;
      EXPECT_TRUE((*vulkan)->Supports(op->kind, dtype))
          << op->name << " on " << ir::DTypeName(dtype);
    }
  }
  EXPECT_GT(pairs, 300);
}

TEST(Random, SameNumbersAsTheCpu) {
  // float16: many values, so that rounding ties and the cap below 1 occur.
  for (auto [dtype, n] : {std::pair{ir::DType::kFloat32, int64_t{1001}},
                          std::pair{ir::DType::kFloat16, int64_t{200001}}}) {
    SCOPED_TRACE(ir::DTypeName(dtype));
    ir::GraphBuilder b;
    ir::ValueId x = b.Input("x", ir::TensorType{dtype, {n}});
    for (const char* name : {"a", "b"}) {  // two streams
      absl::StatusOr<std::vector<ir::ValueId>> r =
          b.Op(ir::OpKind::kRandomUniform, {x});
      ASSERT_TRUE(r.ok()) << r.status();
      b.Output(name, (*r)[0]);
    }
    ir::Graph graph = b.Finish();
    OnBoth both = CompileOnBoth(graph);
    ASSERT_TRUE(both.cpu && both.vulkan);
    both.cpu->SetRandomState(7, 3);
    both.vulkan->SetRandomState(7, 3);
    std::vector<std::vector<std::byte>> seen;
    for (int run = 0; run < 2; ++run) {  // steps 3 and 4
      ASSERT_TRUE(both.cpu->Run().ok());
      ASSERT_TRUE(both.vulkan->Run().ok());
      for (size_t o = 0; o < 2; ++o) {
        std::span<const std::byte> a = both.cpu->output(o),
                                   v = both.vulkan->output(o);
        ASSERT_EQ(a.size(), v.size());
        EXPECT_EQ(std::memcmp(a.data(), v.data(), a.size()), 0)
            << "run " << run << " output " << o;
        seen.emplace_back(v.begin(), v.end());
      }
    }
    EXPECT_NE(seen[0], seen[1]) << "the two streams differ";
    EXPECT_NE(seen[0], seen[2]) << "the two steps differ";
  }
}

// maxPool2dGradient: the CPU's bytes, with ties, NaNs and rows and columns
// no window reaches.
TEST(MaxPoolGradient, SameBytesAsTheCpu) {
  const std::vector<int64_t> xs = {2, 3, 9, 7}, ds = {2, 3, 4, 3};
  ir::GraphBuilder b;
  ir::ValueId x = b.Input("x", ir::TensorType{ir::DType::kFloat32, xs});
  ir::ValueId dy = b.Input("dy", ir::TensorType{ir::DType::kFloat32, ds});
  ir::Attrs attrs;
  attrs.Set("windowDimensions", std::vector<int64_t>{2, 2});
  absl::StatusOr<std::vector<ir::ValueId>> dx =
      b.Op(ir::OpKind::kMaxPool2dGradient, {x, dy}, attrs);
  ASSERT_TRUE(dx.ok()) << dx.status();
  b.Output("dx", (*dx)[0]);
  ir::Graph graph = b.Finish();
  OnBoth both = CompileOnBoth(graph);
  ASSERT_TRUE(both.cpu && both.vulkan);
  std::vector<float> xv(2 * 3 * 9 * 7), dv(2 * 3 * 4 * 3);
  for (size_t i = 0; i < xv.size(); ++i) {
    const int r = static_cast<int>((i * 7919) % 11);
    xv[i] = r == 0 ? NAN : static_cast<float>(r % 3);
  }
  for (size_t i = 0; i < dv.size(); ++i) dv[i] = 0.5f + static_cast<float>(i);
  for (Executable* exe : {both.cpu.get(), both.vulkan.get()}) {
    std::memcpy(exe->input(0).data(), xv.data(), exe->input(0).size());
    std::memcpy(exe->input(1).data(), dv.data(), exe->input(1).size());
    ASSERT_TRUE(exe->Run().ok());
  }
  std::span<const std::byte> a = both.cpu->output(0),
                             v = both.vulkan->output(0);
  ASSERT_EQ(a.size(), v.size());
  EXPECT_EQ(std::memcmp(a.data(), v.data(), a.size()), 0);
}

// 64-bit elements move as two words, int4/uint4 widened through int32:
// transpose, slice, concat, reverse, tile, where, gatherElements and
// scatterElements give the CPU's bytes.
TEST(TypedMovement, SameBytesAsTheCpu) {
  for (ir::DType dtype : {ir::DType::kInt64, ir::DType::kUint64,
                          ir::DType::kInt4, ir::DType::kUint4}) {
    SCOPED_TRACE(ir::DTypeName(dtype));
    ir::GraphBuilder b;
    ir::ValueId x = b.Input("x", ir::TensorType{dtype, {2, 3, 4}});
    ir::ValueId c = b.Input("c", ir::TensorType{ir::DType::kUint8, {3, 1, 4}});
    ir::ValueId at =
        b.Input("at", ir::TensorType{ir::DType::kInt32, {2, 3, 4}});
    auto op = [&](ir::OpKind kind, std::vector<ir::ValueId> in,
                  ir::Attrs attrs = {}) {
      absl::StatusOr<std::vector<ir::ValueId>> r = b.Op(kind, in, attrs);
      EXPECT_TRUE(r.ok()) << r.status();
      return r.ok() ? (*r)[0] : ir::ValueId{0};
    };
    ir::Attrs perm, slice, axis1, tile;
    perm.Set("permutation", std::vector<int64_t>{2, 0, 1});
    slice.Set("starts", std::vector<int64_t>{1, 0, 1});
    slice.Set("sizes", std::vector<int64_t>{3, 2, 2});
    axis1.Set("axis", int64_t{1});
    tile.Set("repetitions", std::vector<int64_t>{1, 2, 1});
    ir::ValueId t = op(ir::OpKind::kTranspose, {x}, perm);   // [4, 2, 3]
    ir::ValueId s = op(ir::OpKind::kSlice, {t}, slice);      // [3, 2, 2]
    ir::ValueId j = op(ir::OpKind::kConcat, {s, s}, axis1);  // [3, 4, 2]
    ir::ValueId r = op(ir::OpKind::kReverse, {j});           // [3, 4, 2]
    ir::ValueId w = op(ir::OpKind::kTile, {r}, tile);        // [3, 8, 2]
    b.Output("moved", w);
    b.Output("gathered", op(ir::OpKind::kGatherElements, {x, at}, axis1));
    b.Output("scattered", op(ir::OpKind::kScatterElements, {x, at, x}, axis1));
    if (dtype == ir::DType::kInt4 || dtype == ir::DType::kUint4) {
      ir::ValueId u = op(ir::OpKind::kTranspose, {x}, perm);  // [4, 2, 3]
      ir::Attrs to_shape;
      to_shape.Set("newShape", std::vector<int64_t>{3, 2, 4});
      ir::ValueId v = op(ir::OpKind::kReshape, {u}, to_shape);
      b.Output("chosen", op(ir::OpKind::kWhere, {c, v, v}));
    }
    ir::Graph graph = b.Finish();
    OnBoth both = CompileOnBoth(graph);
    ASSERT_TRUE(both.cpu && both.vulkan);
    for (Executable* e : {both.cpu.get(), both.vulkan.get()}) {
      std::span<std::byte> in = e->input(0);
      for (size_t i = 0; i < in.size(); ++i) {
        // int4 bytes hold values in [-8, 7] sign-extended, uint4 [0, 15].
        const int v = static_cast<int>((i * 37 + 11) % 251);
        in[i] = static_cast<std::byte>(dtype == ir::DType::kInt4 ? (v % 16) - 8
                                       : dtype == ir::DType::kUint4 ? v % 16
                                                                    : v);
      }
      std::span<std::byte> cond = e->input(1);
      for (size_t i = 0; i < cond.size(); ++i) {
        cond[i] = static_cast<std::byte>(i % 3 == 0);
      }
      // Along axis 1 a permutation for each (a, c): no duplicate targets.
      std::span<std::byte> where = e->input(2);
      for (int32_t a = 0, i = 0; a < 2; ++a) {
        for (int32_t r = 0; r < 3; ++r) {
          for (int32_t k = 0; k < 4; ++k, ++i) {
            const int32_t v = (r + k + a) % 3;
            std::memcpy(where.data() + 4 * i, &v, 4);
          }
        }
      }
      ASSERT_TRUE(e->Run().ok());
    }
    for (size_t o = 0; o < both.cpu->outputs().size(); ++o) {
      std::span<const std::byte> a = both.cpu->output(o),
                                 v = both.vulkan->output(o);
      ASSERT_EQ(a.size(), v.size());
      EXPECT_EQ(std::memcmp(a.data(), v.data(), a.size()), 0)
          << both.cpu->outputs()[o].name;
    }
  }
}

// docs/backends.md's operator table: the "vulkan" column lists exactly the
// data types Supports() accepts ("—" for none).
std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" `"), e = s.find_last_not_of(" `");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

TEST(DocsBackends, VulkanColumnMatchesSupports) {
  std::ifstream in(WEBNNM_SOURCE_DIR "/docs/backends.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  size_t at = doc.find("\n## Operators\n");
  ASSERT_NE(at, std::string::npos);
  std::istringstream lines(doc.substr(at + 14));
  std::string line;
  std::map<std::string, std::string> documented;
  int column = -1;
  while (std::getline(lines, line)) {
    if (line.rfind("## ", 0) == 0) break;
    if (line.rfind("|", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream cells_in(line.substr(1));
    std::string cell;
    while (std::getline(cells_in, cell, '|')) cells.push_back(Trim(cell));
    if (column < 0) {
      for (size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == "vulkan") column = static_cast<int>(i);
      }
      ASSERT_GE(column, 0) << "the operator table has no vulkan column";
      continue;
    }
    if (cells[0].find("---") != std::string::npos) continue;
    ASSERT_GT(static_cast<int>(cells.size()), column) << line;
    documented[cells[0]] = cells[column];
  }
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend("vulkan");
  ASSERT_TRUE(backend.ok()) << backend.status();
  for (const auto& [name, listed] : documented) {
    const ir::OpDef* def = ir::FindOp(name);
    ASSERT_NE(def, nullptr) << name;
    std::string types;
    for (int t = 0; t < ir::kNumDTypes; ++t) {
      ir::DType dtype = static_cast<ir::DType>(t);
      if (!(*backend)->Supports(def->kind, dtype)) continue;
      if (!types.empty()) types += ", ";
      types += ir::DTypeName(dtype);
    }
    EXPECT_EQ(listed, types.empty() ? "—" : types) << name;
  }
}

}  // namespace
}  // namespace webnnm::backends::vulkan
