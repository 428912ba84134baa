// Integer and narrow types on Vulkan against the CPU backend, bit for bit
// (within one unit where both round a differently computed value):
// 64-bit arithmetic and comparisons (as word pairs), argMax/argMin and
// cumulativeSum on integers, max pooling and resampling of int8/uint8
// (widened), dequantizeLinear of uint32, randomUniform aside (vulkan_test);
// tensors of rank 7 and 8 through every kernel family.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

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

// Rank 7 and 8 (WebNN's largest) through every kernel family that walks
// dimensions: the strided shaders (binary, predicate, where, remap,
// gatherElements, gatherND, the scatters, dequantizeLinear), the copies
// (a 64-bit element adds a ninth dimension), matmul's batch, and the flat
// ones (unary, cast) alike, against the CPU. The shapes keep most
// dimensions from merging: alternating broadcasts, a reversing transpose.
// (The reductions and normalizations: reduce_test.cc.)
struct RankCase {
  const char* name;
  ir::OpKind op;
  std::vector<ir::TensorType> inputs;
  ir::Attrs attrs;
  int modulus = 2;  // integer inputs: (7·i + 3) mod this, indices in range
};

// Fills input `salt` of type `dtype`: floats multiples of 1/4 in
// [-1.75, 1.75] (exact sums), integers (7·i + 3 + salt) mod `modulus`,
// uint8 conditions.
void FillRankInput(std::span<std::byte> bytes, ir::DType dtype, int modulus,
                   int salt) {
  const size_t size = ir::RuntimeElementSize(dtype);
  for (size_t i = 0; i < bytes.size() / size; ++i) {
    const int64_t k = static_cast<int64_t>(i) * 7 + 3 + salt;
    std::byte* at = bytes.data() + i * size;
    if (dtype == ir::DType::kFloat32) {
      const float v = 0.25f * static_cast<float>(k % 15 - 7);
      std::memcpy(at, &v, 4);
    } else if (dtype == ir::DType::kUint8) {
      *at = static_cast<std::byte>((i + salt) % 3 == 0);
    } else {
      const int64_t v = k % modulus;  // little-endian: the low bytes
      std::memcpy(at, &v, size);
    }
  }
}

// Runs `c` on `backend`; the output's bytes and type.
absl::StatusOr<std::pair<std::vector<std::byte>, ir::DType>> RunRankCase(
    Backend& backend, const RankCase& c) {
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
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    FillRankInput((*exe)->input(i), c.inputs[i].dtype, c.modulus,
                  static_cast<int>(i));
  }
  if (absl::Status s = (*exe)->Run(); !s.ok()) return s;
  std::span<const std::byte> out = (*exe)->output(0);
  return std::pair{std::vector<std::byte>(out.begin(), out.end()),
                   (*exe)->outputs()[0].dtype};
}

ir::Attrs Attr(const char* name, ir::AttrValue value) {
  ir::Attrs a;
  a.Set(name, std::move(value));
  return a;
}

std::vector<RankCase> MovementRankCases() {
  const ir::DType f32 = ir::DType::kFloat32, i64 = ir::DType::kInt64;
  const std::vector<int64_t> s8 = {2, 3, 2, 3, 2, 3, 2, 3};
  const std::vector<int64_t> s7 = {3, 2, 3, 2, 3, 2, 3};
  ir::Attrs slice;
  slice.Set("starts", std::vector<int64_t>{1, 0, 2, 1, 0, 1, 1, 0});
  slice.Set("sizes", std::vector<int64_t>{2, 2, 1, 3, 2, 2, 2, 3});
  slice.Set("strides", std::vector<int64_t>{1, 2, 1, 1, 2, 1, 1, 1});
  ir::Attrs pad;
  pad.Set("beginningPadding", std::vector<int64_t>{1, 0, 1, 0, 0, 1, 0, 1});
  pad.Set("endingPadding", std::vector<int64_t>{0, 1, 0, 0, 1, 0, 1, 1});
  pad.Set("value", 2.5);
  return {
      {"transpose rank 8", K::kTranspose, {{f32, s8}}},  // reversed
      {"transpose rank 8, int64",
       K::kTranspose,
       {{i64, s8}},
       Attr("permutation", std::vector<int64_t>{7, 0, 6, 1, 5, 2, 4, 3})},
      {"transpose rank 7",
       K::kTranspose,
       {{f32, s7}},
       Attr("permutation", std::vector<int64_t>{1, 3, 5, 0, 2, 4, 6})},
      {"slice rank 8", K::kSlice, {{f32, {3, 4, 3, 4, 3, 4, 3, 4}}}, slice},
      {"expand rank 7 to 8",
       K::kExpand,
       {{f32, {3, 1, 2, 1, 3, 1, 2}}},
       Attr("newShape", std::vector<int64_t>{2, 3, 2, 2, 2, 3, 2, 2})},
      {"concat rank 8",
       K::kConcat,
       {{f32, s8}, {f32, {2, 3, 2, 3, 2, 1, 2, 3}}},
       Attr("axis", int64_t{5})},
      {"concat rank 7, int64",
       K::kConcat,
       {{i64, s7}, {i64, s7}},
       Attr("axis", int64_t{2})},
      {"reverse rank 8",
       K::kReverse,
       {{f32, s8}},
       Attr("axes", std::vector<int64_t>{0, 3, 7})},
      {"split rank 7", K::kSplit, {{f32, s7}}, Attr("splits", int64_t{3})},
      {"pad rank 8", K::kPad, {{f32, s8}}, pad},
      {"tile rank 7",
       K::kTile,
       {{i64, s7}},
       Attr("repetitions", std::vector<int64_t>{1, 2, 1, 1, 2, 1, 1})},
      {"triangular rank 8", K::kTriangular, {{f32, s8}}},
  };
}

std::vector<RankCase> ComputeRankCases() {
  const ir::DType f32 = ir::DType::kFloat32, i32 = ir::DType::kInt32,
                  i64 = ir::DType::kInt64, u8 = ir::DType::kUint8;
  const std::vector<int64_t> s8 = {2, 3, 2, 3, 2, 3, 2, 3};
  const std::vector<int64_t> s7 = {3, 2, 3, 2, 3, 2, 3};
  ir::Attrs cast = Attr("type", std::string("int32"));
  return {
      {"add broadcast to rank 8",
       K::kAdd,
       {{f32, {2, 1, 3, 1, 2, 1, 3, 1}}, {f32, {2, 1, 3, 1, 2, 1, 3}}}},
      {"mul broadcast rank 7",
       K::kMul,
       {{f32, {3, 1, 2, 1, 3, 1, 2}}, {f32, {1, 2, 1, 2, 1, 2, 1}}}},
      {"sub rank 8, int64",
       K::kSub,
       {{i64, s8}, {i64, {1, 3, 1, 3, 1, 3, 1, 3}}},
       {},
       1000},
      {"neg rank 8", K::kNeg, {{f32, s8}}},
      {"relu rank 7", K::kRelu, {{f32, s7}}},
      {"cast rank 8", K::kCast, {{f32, s8}}, cast},
      {"greater broadcast rank 8",
       K::kGreater,
       {{f32, {2, 1, 3, 1, 2, 1, 3, 1}}, {f32, {1, 2, 1, 2, 1, 2, 1, 2}}}},
      {"where broadcast rank 8",
       K::kWhere,
       {{u8, {2, 1, 3, 1, 2, 1, 3, 1}},
        {f32, {1, 2, 1, 2, 1, 2, 1, 2}},
        {f32, {2, 3, 1, 2, 1, 3, 1}}}},
      {"where rank 7, int64",
       K::kWhere,
       {{u8, {3, 1, 3, 1, 3, 1, 3}}, {i64, s7}, {i64, {2, 1, 2, 1, 2, 1}}},
       {},
       1000},
      {"gatherElements rank 8",
       K::kGatherElements,
       {{f32, s8}, {i32, {2, 3, 2, 2, 2, 3, 2, 3}}},
       Attr("axis", int64_t{3}),
       3},
      {"gatherElements rank 7, int64",
       K::kGatherElements,
       {{i64, s7}, {i32, {3, 2, 3, 2, 3, 2, 2}}},
       Attr("axis", int64_t{6}),
       3},
      {"gatherND rank 8, k = 8", K::kGatherND, {{f32, s8}, {i32, {3, 8}}}},
      {"gatherND rank 8, k = 3", K::kGatherND, {{f32, s8}, {i32, {2, 3}}}},
      {"scatterElements rank 8",
       K::kScatterElements,
       {{f32, s8},
        {i32, {2, 1, 2, 3, 2, 3, 2, 3}},
        {f32, {2, 1, 2, 3, 2, 3, 2, 3}}},
       Attr("axis", int64_t{1}),
       3},
      {"scatterND rank 8, k = 3",
       K::kScatterND,
       {{f32, s8}, {i32, {1, 3}}, {f32, {1, 3, 2, 3, 2, 3}}}},
      {"dequantizeLinear rank 8",
       K::kDequantizeLinear,
       {{ir::DType::kInt8, s8},
        {f32, {2, 1, 2, 1, 1, 3, 1, 1}},
        {ir::DType::kInt8, {2, 1, 2, 1, 1, 3, 1, 1}}},
       {},
       100},
      {"matmul rank 8",
       K::kMatmul,
       {{f32, {2, 1, 2, 1, 2, 1, 3, 4}}, {f32, {1, 2, 1, 2, 1, 2, 4, 5}}}},
      {"softmax rank 8", K::kSoftmax, {{f32, s8}}, Attr("axis", int64_t{4})},
  };
}

TEST(HighRank, Rank7And8MatchTheCpu) {
  auto cpu = CreateBackend("cpu");
  auto vulkan = CreateBackend("vulkan");
  ASSERT_TRUE(cpu.ok() && vulkan.ok());
  std::vector<RankCase> cases = MovementRankCases();
  for (RankCase& c : ComputeRankCases()) cases.push_back(std::move(c));
  for (const RankCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto want = RunRankCase(**cpu, c);
    ASSERT_TRUE(want.ok()) << want.status();
    auto got = RunRankCase(**vulkan, c);
    if (!got.ok()) {  // every case reports
      ADD_FAILURE() << got.status();
      continue;
    }
    const auto& [a, type] = *want;
    const std::vector<std::byte>& v = got->first;
    ASSERT_EQ(a.size(), v.size());
    if (type != ir::DType::kFloat32) {
      EXPECT_EQ(std::memcmp(a.data(), v.data(), a.size()), 0);
      continue;
    }
    int64_t wrong = 0;
    for (size_t i = 0; i < a.size(); i += 4) {
      float p, q;
      std::memcpy(&p, a.data() + i, 4);
      std::memcpy(&q, v.data() + i, 4);
      wrong += !(std::fabs(p - q) <= 1e-5f * std::max(1.0f, std::fabs(p)));
    }
    EXPECT_EQ(wrong, 0);
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
