// Integer and narrow types on Vulkan against the CPU backend, bit for bit
// (within one unit where both round a differently computed value):
// 64-bit arithmetic and comparisons (as word pairs), argMax/argMin and
// cumulativeSum on integers, max pooling and resampling of int8/uint8
// (widened), dequantizeLinear of uint32, randomUniform aside (vulkan_test).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/base/float16.h"
#include "engine/ir/graph_builder.h"
#include "engine/ir/op_def.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;
using ir::DType;

struct Case {
  K op;
  std::vector<ir::TensorType> inputs;
  ir::Attrs attrs;
  // Inputs are random bytes, masked per byte (keeps values small when
  // needed, for example indices or shift amounts).
  uint8_t mask = 0xff;
  // Results may differ by one unit (a float32 ULP, or 1 for int8/uint8):
  // both backends round a value computed differently (the CPU in double,
  // the device in float).
  bool within_one = false;
};

// Whether every element of `a` and `b` (of type `t`) is within one unit.
bool WithinOne(const std::vector<std::byte>& a, const std::vector<std::byte>& b,
               DType t) {
  const size_t size = ir::RuntimeElementSize(t);
  for (size_t i = 0; i + size <= a.size(); i += size) {
    int64_t u = 0, v = 0;
    if (t == DType::kFloat32) {
      int32_t x, y;  // float bits are ordered like integers of one sign
      std::memcpy(&x, a.data() + i, 4);
      std::memcpy(&y, b.data() + i, 4);
      if ((x < 0) != (y < 0)) return false;
      u = x, v = y;
    } else if (t == DType::kInt8) {
      u = static_cast<int8_t>(a[i]), v = static_cast<int8_t>(b[i]);
    } else {
      u = static_cast<uint8_t>(a[i]), v = static_cast<uint8_t>(b[i]);
    }
    if (std::abs(u - v) > 1) return false;
  }
  return true;
}

ir::Attrs A(std::initializer_list<std::pair<const char*, ir::AttrValue>> v) {
  ir::Attrs attrs;
  for (const auto& [name, value] : v) attrs.Set(name, value);
  return attrs;
}

// Runs `c` on `backend`; returns the output's bytes, or the status.
absl::StatusOr<std::vector<std::byte>> RunCase(Backend& backend,
                                               const Case& c) {
  ir::GraphBuilder b;
  std::vector<ir::ValueId> in;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    in.push_back(b.Input("x" + std::to_string(i), c.inputs[i]));
  }
  absl::StatusOr<std::vector<ir::ValueId>> y = b.Op(c.op, in, c.attrs);
  if (!y.ok()) return y.status();
  b.Output("y", (*y)[0]);
  auto exe = backend.Compile(b.Finish(), CompileOptions{});
  if (!exe.ok()) return exe.status();
  std::mt19937 rng(7);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    std::span<std::byte> bytes = (*exe)->input(i);
    for (std::byte& x : bytes) x = static_cast<std::byte>(rng() & c.mask);
  }
  if (absl::Status s = (*exe)->Run(); !s.ok()) return s;
  std::span<const std::byte> out = (*exe)->output(0);
  return std::vector<std::byte>(out.begin(), out.end());
}

TEST(TypedOps, SameBitsAsTheCpu) {
  const ir::TensorType i64{DType::kInt64, {3, 4, 5}};
  const ir::TensorType u64{DType::kUint64, {3, 4, 5}};
  const ir::TensorType row64{DType::kInt64, {1, 4, 1}};
  std::vector<Case> cases;
  for (K op : {K::kAdd, K::kSub, K::kMul, K::kDiv, K::kMax, K::kMin, K::kPow,
               K::kEqual, K::kNotEqual, K::kGreater, K::kGreaterOrEqual,
               K::kLesser, K::kLesserOrEqual}) {
    cases.push_back({op, {i64, i64}});
    cases.push_back({op, {u64, u64}});
    cases.push_back({op, {i64, row64}});  // broadcast
  }
  cases.push_back({K::kPrelu, {i64, row64}});
  cases.push_back({K::kDiv, {i64, i64}, {}, 0x03});  // small: many x / 0
  for (K op : {K::kAbs, K::kNeg, K::kSign, K::kRelu}) {
    cases.push_back({op, {i64}});
  }
  cases.push_back({K::kClamp,
                   {i64},
                   A({{"minValue", -1e15}, {"maxValue", 9007199254740992.0}})});
  cases.push_back({K::kClamp, {u64}, A({{"minValue", 5.0}})});
  for (DType t : {DType::kInt32, DType::kUint32, DType::kInt64, DType::kUint64,
                  DType::kInt8, DType::kUint8}) {
    const ir::TensorType x{t, {4, 9, 3}};
    cases.push_back({K::kArgMax, {x}, A({{"axis", int64_t{1}}})});
    cases.push_back({K::kArgMin, {x}, A({{"axis", int64_t{0}}})});
    if (t == DType::kInt8 || t == DType::kUint8) continue;  // no CPU scan
    cases.push_back({K::kCumulativeSum,
                     {x},
                     A({{"axis", int64_t{1}}, {"reversed", true}})});
    cases.push_back({K::kCumulativeSum,
                     {x},
                     A({{"axis", int64_t{2}}, {"exclusive", true}})});
  }
  for (DType t : {DType::kInt8, DType::kUint8}) {
    const ir::TensorType image{t, {2, 3, 7, 6}};
    cases.push_back({K::kMaxPool2d,
                     {image},
                     A({{"windowDimensions", std::vector<int64_t>{3, 2}},
                        {"padding", std::vector<int64_t>{1, 3, 0, 2}},
                        {"strides", std::vector<int64_t>{2, 1}}})});
    cases.push_back({K::kResample2d,
                     {image},
                     A({{"mode", std::string("linear")},
                        {"sizes", std::vector<int64_t>{11, 4}}}),
                     0xff,
                     /*within_one=*/true});
    cases.push_back({K::kResample2d,
                     {image},
                     A({{"scales", std::vector<double>{1.5, 2.0}}})});
  }
  // quantizeLinear to uint32: zero points near 2^32 saturate.
  cases.push_back({K::kQuantizeLinear,
                   {{DType::kFloat32, {4, 6}},
                    {DType::kFloat32, {1, 3}},
                    {DType::kUint32, {1, 3}}}});
  cases.push_back({K::kDequantizeLinear,
                   {{DType::kUint32, {4, 6}},
                    {DType::kFloat32, {1, 3}},
                    {DType::kUint32, {1, 3}}},
                   {},
                   0x3f,
                   /*within_one=*/true});

  auto cpu = CreateBackend("cpu");
  auto vulkan = CreateBackend("vulkan");
  ASSERT_TRUE(cpu.ok() && vulkan.ok());
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(ir::GetOp(c.op).name) + " on " +
                 std::string(ir::DTypeName(c.inputs[0].dtype)));
    auto want = RunCase(**cpu, c);
    ASSERT_TRUE(want.ok()) << want.status();
    auto got = RunCase(**vulkan, c);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(want->size(), got->size());
    if (c.within_one) {
      const DType out =
          c.op == K::kDequantizeLinear ? DType::kFloat32 : c.inputs[0].dtype;
      EXPECT_TRUE(WithinOne(*want, *got, out));
    } else {
      EXPECT_EQ(std::memcmp(want->data(), got->data(), want->size()), 0);
    }
  }
}

// float16 element-wise operations read and write float16 directly on a
// device with 16-bit storage, and run widened through float32 without it
// (WEBNNM_VULKAN_FLOAT16=0): both compute in float32 and round once, so
// their bits are equal; and the CPU's within its float16 rounding (exp and
// gelu are not correctly rounded on either side).
TEST(Float16, DirectAndWidenedGiveTheSameBits) {
  ir::GraphBuilder b;
  const ir::TensorType t{DType::kFloat16, {3, 1000}};
  ir::ValueId x = b.Input("x", t);
  ir::ValueId s = b.Input("s", ir::TensorType{DType::kFloat16, {3, 1}});
  auto op = [&](K kind, std::vector<ir::ValueId> in, ir::Attrs attrs = {}) {
    auto r = b.Op(kind, in, attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? (*r)[0] : ir::ValueId{0};
  };
  ir::ValueId e = op(K::kExp, {x});
  ir::ValueId m = op(K::kMul, {e, s});  // broadcast
  ir::ValueId g = op(K::kGelu, {m});
  ir::ValueId c = op(K::kClamp, {op(K::kSub, {g, x})},
                     A({{"minValue", -3.0}, {"maxValue", 40.0}}));
  b.Output("y", op(K::kDiv, {c, op(K::kAdd, {s, s})}));
  const ir::Graph graph = b.Finish();

  auto run = [&](Backend& backend, std::string* implementations) {
    auto exe = backend.Compile(graph, CompileOptions{});
    EXPECT_TRUE(exe.ok()) << exe.status();
    if (!exe.ok()) return std::vector<std::byte>{};
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-4.0f, 4.0f);
    for (size_t i = 0; i < 2; ++i) {
      std::span<std::byte> in = (*exe)->input(i);
      for (size_t k = 0; k < in.size(); k += 2) {
        const uint16_t h = DoubleToHalf(u(rng));
        std::memcpy(in.data() + k, &h, 2);
      }
    }
    EXPECT_TRUE((*exe)->Run().ok());
    for (const std::string& name : (*exe)->implementations()) {
      *implementations += name + "; ";
    }
    std::span<const std::byte> out = (*exe)->output(0);
    return std::vector<std::byte>(out.begin(), out.end());
  };
  std::string ignored;
  auto cpu = CreateBackend("cpu");
  ASSERT_TRUE(cpu.ok());
  const std::vector<std::byte> want = run(**cpu, &ignored);
  std::vector<std::vector<std::byte>> got;
  for (const char* setting : {"1", "0"}) {
    SCOPED_TRACE(std::string("WEBNNM_VULKAN_FLOAT16=") + setting);
    setenv("WEBNNM_VULKAN_FLOAT16", setting, 1);
    std::string names;
    {
      auto vulkan = CreateBackend("vulkan");  // the device opens afresh
      ASSERT_TRUE(vulkan.ok());
      got.push_back(run(**vulkan, &names));
    }
    unsetenv("WEBNNM_VULKAN_FLOAT16");
    const bool direct = std::string(setting) == "1";
    EXPECT_EQ(names.find("unary_half.comp") != std::string::npos, direct)
        << names;
    EXPECT_EQ(names.find("binary_half.comp") != std::string::npos, direct)
        << names;
    EXPECT_EQ(names.find("cast.comp") != std::string::npos, !direct) << names;
  }
}

}  // namespace
}  // namespace webnnm::backends::vulkan
