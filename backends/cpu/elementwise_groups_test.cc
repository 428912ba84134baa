// Element-wise groups (elementwise_groups.h) and their fused kernel
// (kernels/fused_elementwise.h): which operations group, and that a fused
// group computes every result bit for bit as the operations' own kernels.
#include "backends/cpu/elementwise_groups.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/ir/constant_data.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::backends::cpu {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Ints = std::vector<int64_t>;

ir::TensorType Type(ir::DType dtype, Ints shape) { return {dtype, shape}; }

int64_t Count(const Ints& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A graph under construction with the bytes of every input.
struct Net {
  ir::GraphBuilder b;
  std::map<std::string, std::vector<std::byte>> data;

  // float32 values with the awkward ones among them: ±0, ±inf, NaN, tiny
  // and huge magnitudes, integers and halves (floor, ceil, comparisons).
  ir::ValueId F(const std::string& name, Ints shape) {
    static const float kSpecial[] = {0.0f,
                                     -0.0f,
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN(),
                                     1e-40f,
                                     -3e38f,
                                     2.0f,
                                     -2.5f,
                                     1.0f};
    std::vector<float> v(Count(shape));
    uint32_t state = static_cast<uint32_t>(name.size() * 7919 + v.size());
    for (size_t i = 0; i < v.size(); ++i) {  // the special ones first
      state = state * 1664525u + 1013904223u;
      v[i] = i < 10 ? kSpecial[(i + name[0]) % 10]
                    : static_cast<float>(state >> 8) / 4194304.0f - 2.0f;
    }
    Put(name, v.data(), v.size() * sizeof(float));
    return b.Input(name, Type(ir::DType::kFloat32, shape));
  }
  // uint8 values 0, 1, 2 and 255.
  ir::ValueId U(const std::string& name, Ints shape) {
    static const uint8_t kValues[] = {0, 1, 2, 255, 0, 1};
    std::vector<uint8_t> v(Count(shape));
    for (size_t i = 0; i < v.size(); ++i) v[i] = kValues[(i * 7 + 3) % 6];
    Put(name, v.data(), v.size());
    return b.Input(name, Type(ir::DType::kUint8, shape));
  }
  // One uint8 element of value v.
  ir::ValueId Flag(const std::string& name, uint8_t v) {
    Put(name, &v, 1);
    return b.Input(name, Type(ir::DType::kUint8, {}));
  }
  void Put(const std::string& name, const void* p, size_t bytes) {
    std::vector<std::byte>& d = data[name];
    d.resize(bytes);
    std::memcpy(d.data(), p, bytes);
  }
  ir::ValueId Op(const std::string& op, std::vector<ir::ValueId> operands,
                 const ir::Attrs& attrs = {}) {
    auto r = b.Op(ir::FindOp(op)->kind, operands, attrs);
    EXPECT_TRUE(r.ok()) << op << ": " << r.status();
    return r.ok() ? r->front() : ir::kNoValue;
  }
  bool Bytes(ir::ValueId v) const {
    return b.Type(v).dtype == ir::DType::kUint8;
  }
  // Outputs v and a second operation over it (so that results are read
  // inside the group as well as stored).
  void OutputWithFollower(const std::string& name, ir::ValueId v) {
    b.Output(name, v);
    b.Output(name + "'", Op(Bytes(v) ? "logicalNot" : "neg", {v}));
  }
};

struct Result {
  std::vector<std::string> implementations;
  std::vector<std::vector<std::byte>> outputs;
  size_t intermediate_bytes = 0;
};

Result Compile(ir::Graph graph, const Net& net, bool fusion, int threads = 1) {
  auto backend = CreateBackend("cpu");
  CompileOptions options;
  options.fusion = fusion;
  options.threads = threads;
  auto exe = (*backend)->Compile(graph, options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  Result r;
  if (!exe.ok()) return r;
  for (const auto& [name, bytes] : net.data) {
    int i = (*exe)->FindInput(name);
    EXPECT_GE(i, 0) << name;
    if (i < 0) continue;
    EXPECT_EQ((*exe)->input(i).size(), bytes.size());
    std::memcpy((*exe)->input(i).data(), bytes.data(), bytes.size());
  }
  EXPECT_TRUE((*exe)->Run().ok());
  r.implementations = (*exe)->implementations();
  r.intermediate_bytes = (*exe)->intermediate_bytes();
  for (size_t i = 0; i < (*exe)->outputs().size(); ++i) {
    std::span<const std::byte> bytes = (*exe)->output(i);
    r.outputs.emplace_back(bytes.begin(), bytes.end());
  }
  return r;
}

// Runs the network fused and unfused, expects the same bytes in every
// output, and returns the fused executable's kernel names.
std::vector<std::string> SameBitsFusedOrNot(Net& net, int threads = 1) {
  ir::Graph graph = net.b.Finish();
  Result fused = Compile(graph, net, true, threads),
         plain = Compile(graph, net, false, threads);
  EXPECT_EQ(fused.outputs.size(), plain.outputs.size());
  for (size_t o = 0; o < fused.outputs.size() && o < plain.outputs.size();
       ++o) {
    EXPECT_TRUE(fused.outputs[o] == plain.outputs[o]) << "output " << o;
  }
  return fused.implementations;
}

// y = relu(-(-(x * 2 + 2))): five operations on n elements.
ir::Graph Chain(Net& net, int64_t n) {
  ir::ValueId x = net.F("x", {n});
  auto two = net.b.Constant("two", Type(ir::DType::kFloat32, {}),
                            ir::ScalarData(ir::DType::kFloat32, 2));
  ir::ValueId v = net.Op("mul", {x, *two});
  v = net.Op("add", {v, *two});
  v = net.Op("neg", {v});
  v = net.Op("neg", {v});
  net.b.Output("y", net.Op("relu", {v}));
  return net.b.Finish();
}

TEST(ElementwiseGroups, AChainIsOneKernelWithoutIntermediates) {
  Net net;
  ir::Graph graph = Chain(net, 1000);
  Result fused = Compile(graph, net, true), plain = Compile(graph, net, false);
  EXPECT_THAT(fused.implementations,
              ElementsAre("mul+add+neg+neg+relu: C++ (5 operations in one "
                          "pass)"));
  EXPECT_EQ(fused.intermediate_bytes, 0u);
  EXPECT_GT(plain.intermediate_bytes, 0u);
  EXPECT_EQ(plain.implementations.size(), 5u);
  EXPECT_TRUE(fused.outputs == plain.outputs);
}

TEST(ElementwiseGroups, LargeGroupsStreamOnEveryThread) {
  // An optimizer's update of a 100,000-element parameter: one pass, on one
  // thread or split among two, the same bits as oneDNN's kernels one by one.
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    Net net;
    ir::ValueId w = net.F("w", {250, 400}), g = net.F("g", {250, 400});
    ir::ValueId m = net.F("m", {250, 400}), lr = net.F("lr", {});
    ir::ValueId beta = net.F("beta", {}), apply = net.U("apply", {});
    ir::ValueId m2 = net.Op("add", {net.Op("mul", {m, beta}), g});
    ir::ValueId w2 = net.Op("sub", {w, net.Op("mul", {m2, lr})});
    net.b.Output("w2", net.Op("where", {apply, w2, w}));
    net.b.Output("m2", net.Op("where", {apply, m2, m}));
    EXPECT_THAT(SameBitsFusedOrNot(net, threads),
                ElementsAre("mul+add+mul+sub+where+where: C++ (6 operations "
                            "in one pass)"));
  }
}

TEST(ElementwiseGroups, UpdatesAppliedOrNotMatchTheirOwnKernels) {
  // The fused kernel drops wheres of a known one-element condition and
  // joins products to their sums (kernels/fused_elementwise_program.h):
  // sgdm with weight decay, nesterov and lion's blends, applied (1 or 255)
  // or not, with a chosen value also stored for another reader.
  for (uint8_t applied : {0, 1, 255}) {
    SCOPED_TRACE(int(applied));
    Net net;
    ir::ValueId w = net.F("w", {37, 29}), g = net.F("g", {37, 29});
    ir::ValueId m = net.F("m", {37, 29}), lr = net.F("lr", {});
    ir::ValueId beta = net.F("beta", {}), decay = net.F("decay", {});
    ir::ValueId apply = net.Flag("apply", applied);
    ir::ValueId gd = net.Op("add", {g, net.Op("mul", {w, decay})});
    ir::ValueId m2 = net.Op("add", {net.Op("mul", {m, beta}), gd});
    ir::ValueId ahead = net.Op("add", {gd, net.Op("mul", {m2, beta})});
    ir::ValueId w2 = net.Op("sub", {w, net.Op("mul", {ahead, lr})});
    ir::ValueId blend =
        net.Op("add", {net.Op("mul", {m, beta}), net.Op("mul", {g, decay})});
    ir::ValueId w3 = net.Op("sub", {net.Op("mul", {blend, lr}), w});
    net.b.Output("w2", net.Op("where", {apply, w2, w}));
    net.b.Output("m2", net.Op("where", {apply, m2, m}));
    net.OutputWithFollower("w3", net.Op("where", {apply, w3, w2}));
    net.b.Output("blend", net.Op("where", {apply, m, blend}));
    EXPECT_THAT(SameBitsFusedOrNot(net),
                ElementsAre(HasSubstr("18 operations in one pass")));
  }
}

TEST(ElementwiseGroups, LargeGroupsTakeNeitherBroadcastRowsNorBytes) {
  Net net;
  ir::ValueId x = net.F("x", {100, 50}), bias = net.F("bias", {50});
  ir::ValueId y = net.Op("relu", {net.Op("add", {x, bias})});  // a row
  ir::ValueId gt = net.Op("greater", {y, x});                  // bytes
  net.b.Output("y", net.Op("where", {gt, y, x}));
  std::vector<std::string> names = SameBitsFusedOrNot(net);
  for (const std::string& name : names) {
    EXPECT_THAT(name, ::testing::Not(HasSubstr("in one pass")));
  }
  EXPECT_EQ(names.size(), 4u);
}

TEST(ElementwiseGroups, LargeGroupsLeaveOneDnnActivationsAlone) {
  // relu of a large tensor runs on oneDNN's eltwise (a negative input gives
  // -0); fused it would give +0, so it stays out and the bits agree.
  Net net;
  ir::ValueId x = net.F("x", {100, 50}), s = net.F("s", {});
  ir::ValueId scaled = net.Op("mul", {net.Op("sub", {x, s}), s});
  net.b.Output("y", net.Op("relu", {scaled}));
  net.b.Output("z", net.Op("abs", {scaled}));
  EXPECT_THAT(SameBitsFusedOrNot(net),
              ElementsAre("sub+mul: C++ (2 operations in one pass)",
                          HasSubstr("relu: oneDNN"), HasSubstr("abs: oneDNN")));
}

TEST(ElementwiseGroups, BinaryOperationsMatchTheirOwnKernels) {
  // Each with a full, a one-element (on either side), a row and a column
  // operand.
  for (const char* op :
       {"add", "sub", "mul", "div", "max", "min", "equal", "notEqual",
        "greater", "greaterOrEqual", "lesser", "lesserOrEqual"}) {
    SCOPED_TRACE(op);
    Net net;
    ir::ValueId a = net.F("a", {5, 7}), b = net.F("b", {5, 7});
    ir::ValueId s = net.F("s", {}), r = net.F("r", {7}), c = net.F("c", {5, 1});
    net.OutputWithFollower("full", net.Op(op, {a, b}));
    net.OutputWithFollower("one", net.Op(op, {a, s}));
    net.OutputWithFollower("left", net.Op(op, {s, b}));
    net.OutputWithFollower("row", net.Op(op, {r, a}));
    net.OutputWithFollower("column", net.Op(op, {a, c}));
    // Five groups: each result and the operation over it.
    std::vector<std::string> names = SameBitsFusedOrNot(net);
    EXPECT_EQ(names.size(), 5u);
    EXPECT_THAT(names, Each(HasSubstr("2 operations in one pass")));
  }
}

TEST(ElementwiseGroups, BroadcastOperandsOfAnySizeMatchTheirOwnKernels) {
  // Operands broadcast from up to 16, up to 32 and more elements (picked
  // by permutations of one or two vectors, or gathered).
  for (int64_t width : {16, 24, 40}) {
    SCOPED_TRACE(width);
    Net net;
    ir::ValueId a = net.F("a", {3, width}), r = net.F("r", {width});
    ir::ValueId c = net.F("c", {3, 1});
    net.OutputWithFollower("row", net.Op("sub", {a, r}));
    net.OutputWithFollower("column", net.Op("mul", {c, a}));
    EXPECT_THAT(SameBitsFusedOrNot(net),
                Each(HasSubstr("2 operations in one pass")));
  }
}

TEST(ElementwiseGroups, UnaryOperationsMatchTheirOwnKernels) {
  ir::Attrs clamp, leaky;
  clamp.Set("minValue", -1.0);
  clamp.Set("maxValue", 2.0);
  leaky.Set("alpha", 0.1);
  const std::vector<std::pair<const char*, ir::Attrs>> ops = {
      {"abs", {}},          {"neg", {}},      {"sign", {}},
      {"relu", {}},         {"sqrt", {}},     {"reciprocal", {}},
      {"softsign", {}},     {"floor", {}},    {"ceil", {}},
      {"identity", {}},     {"clamp", clamp}, {"clamp", {}},
      {"leakyRelu", leaky}, {"isNaN", {}},    {"isInfinite", {}},
      {"exp", {}},          {"sigmoid", {}}};
  for (const auto& [op, attrs] : ops) {
    SCOPED_TRACE(op);
    Net net;
    net.OutputWithFollower("y", net.Op(op, {net.F("x", {3, 11})}, attrs));
    EXPECT_THAT(SameBitsFusedOrNot(net),
                ElementsAre(HasSubstr("2 operations in one pass")));
  }
}

TEST(ElementwiseGroups, LogicWhereCastAndExpandMatchTheirOwnKernels) {
  Net net;
  ir::ValueId p = net.U("p", {4, 6}), q = net.U("q", {4, 6});
  ir::ValueId pr = net.U("pr", {6});
  for (const char* op : {"logicalAnd", "logicalOr", "logicalXor"}) {
    net.OutputWithFollower(op, net.Op(op, {p, q}));
    net.OutputWithFollower(std::string(op) + " row", net.Op(op, {pr, q}));
  }
  net.OutputWithFollower("not", net.Op("logicalNot", {p}));
  ir::Attrs to_float;
  to_float.Set("type", std::string("float32"));
  net.OutputWithFollower("cast", net.Op("cast", {p}, to_float));
  ir::ValueId t = net.F("t", {4, 6}), f = net.F("f", {});
  net.OutputWithFollower("where", net.Op("where", {p, t, f}));
  net.OutputWithFollower("where row", net.Op("where", {pr, f, t}));
  ir::Attrs wide;
  wide.Set("newShape", std::vector<int64_t>{4, 6});
  net.OutputWithFollower("expand", net.Op("expand", {net.F("e", {6})}, wide));
  net.OutputWithFollower("expand bytes", net.Op("expand", {pr}, wide));
  // A comparison made inside the group as where's condition.
  net.b.Output("inner where",
               net.Op("where", {net.Op("greater", {t, f}), t, f}));
  EXPECT_THAT(SameBitsFusedOrNot(net),
              Each(HasSubstr("operations in one pass")));
}

TEST(ElementwiseGroups, AnOutsideReaderSealsTheGroup) {
  // a → b → (matmul reads b) → c reads b and the matmul: c cannot join
  // the group of a and b, which must have run before the matmul.
  Net net;
  ir::ValueId x = net.F("x", {4, 4});
  ir::ValueId a = net.Op("neg", {x});
  ir::ValueId b = net.Op("abs", {a});
  ir::ValueId m = net.Op("matmul", {b, b});
  ir::ValueId c = net.Op("add", {b, m});
  net.b.Output("y", net.Op("relu", {c}));
  EXPECT_THAT(SameBitsFusedOrNot(net),
              ElementsAre("neg+abs: C++ (2 operations in one pass)",
                          HasSubstr("matmul"),
                          "add+relu: C++ (2 operations in one pass)"));
}

TEST(ElementwiseGroups, PlansJoinMergeAndKeepShapesApart) {
  Net net;
  ir::ValueId x = net.F("x", {3}), y = net.F("y", {3}), z = net.F("z", {2, 3});
  ir::ValueId a = net.Op("neg", {x});     // group 1
  ir::ValueId b = net.Op("abs", {y});     // group 2
  ir::ValueId c = net.Op("add", {a, b});  // joins and merges 1 and 2
  ir::ValueId d = net.Op("mul", {c, z});  // {2, 3}: a group of its own
  net.b.Output("d", net.Op("relu", {d}));
  ir::Graph graph = net.b.Finish();
  auto order = graph.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  std::vector<ElementwiseGroup> groups = PlanElementwiseGroups(
      graph, *order, std::vector<bool>(graph.num_nodes(), false), 4096);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].members.size(), 3u);  // neg, abs, add
  EXPECT_EQ(groups[1].members.size(), 2u);  // mul, relu
  // Streaming from 4 elements: mul reads a {3} row into {2, 3} and relu
  // would run on oneDNN, so only the {3} group is left; taken nodes stay
  // out.
  groups = PlanElementwiseGroups(graph, *order,
                                 std::vector<bool>(graph.num_nodes()), 4);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].members.size(), 3u);
  std::vector<bool> taken(graph.num_nodes(), false);
  taken[graph.value(c).producer] = true;
  groups = PlanElementwiseGroups(graph, *order, taken, 4096);
  EXPECT_EQ(groups.size(), 1u);  // mul, relu; neg and abs stay alone
}

}  // namespace
}  // namespace webnnm::backends::cpu
