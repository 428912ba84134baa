// Backend equivalence: randomly generated graphs of the operations the
// Vulkan backend has run on both backends, with the same inputs, and give
// the same results (within float32 rounding of different summation
// orders). Each graph is a chain of 3–8 operations on values drawn from a
// growing pool; the seed of a failing graph is in the failure message.
#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/graph_builder.h"
#include "engine/ir/op_def.h"

namespace webnnm::backends {
namespace {

using K = ir::OpKind;

class RandomGraph {
 public:
  explicit RandomGraph(uint32_t seed) : rng_(seed) {}

  // Builds the graph; `description` lists its operations.
  ir::Graph Build(std::string& description) {
    pool_.push_back(NewInput(RandomShape()));
    const int steps = Uniform(3, 8);
    for (int s = 0; s < steps; ++s) {
      absl::StatusOr<ir::ValueId> v = Step(description);
      if (v.ok()) pool_.push_back(*v);
    }
    builder_.Output("y", pool_.back());
    if (pool_.size() > 2) builder_.Output("z", pool_[pool_.size() / 2]);
    return builder_.Finish();
  }

  const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs()
      const {
    return inputs_;
  }

 private:
  int Uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  std::vector<int64_t> RandomShape() {
    std::vector<int64_t> shape(Uniform(1, 4));
    for (int64_t& d : shape) d = Uniform(1, 7);
    return shape;
  }
  ir::ValueId NewInput(std::vector<int64_t> shape) {
    std::string name = StrCat("x", inputs_.size());
    inputs_.push_back({name, shape});
    return builder_.Input(name, ir::TensorType{ir::DType::kFloat32, shape});
  }
  const std::vector<int64_t>& Shape(ir::ValueId v) {
    return builder_.Type(v).shape;
  }
  absl::StatusOr<ir::ValueId> One(K op, std::vector<ir::ValueId> operands,
                                  ir::Attrs attrs = {}) {
    absl::StatusOr<std::vector<ir::ValueId>> r =
        builder_.Op(op, std::move(operands), std::move(attrs));
    if (!r.ok()) return r.status();
    return (*r)[0];
  }

  absl::StatusOr<ir::ValueId> Step(std::string& description) {
    ir::ValueId x = pool_[Uniform(0, static_cast<int>(pool_.size()) - 1)];
    const std::vector<int64_t> shape = Shape(x);
    const int rank = static_cast<int>(shape.size());
    ir::Attrs a;
    static const K kUnary[] = {K::kRelu,     K::kSigmoid,   K::kTanh,
                               K::kAbs,      K::kNeg,       K::kSoftsign,
                               K::kElu,      K::kLeakyRelu, K::kHardSwish,
                               K::kGelu,     K::kClamp,     K::kLinear,
                               K::kSoftplus, K::kFloor,     K::kHardSigmoid};
    static const K kBinary[] = {K::kAdd, K::kSub, K::kMul, K::kMax, K::kMin};
    // A scalar (everything reduced) only takes the element-wise ones.
    switch (rank == 0 ? Uniform(0, 1) : Uniform(0, 10)) {
      case 0:
      case 1: {
        K op = kUnary[Uniform(0, std::size(kUnary) - 1)];
        description += StrCat(ir::GetOp(op).name, " ");
        return One(op, {x});
      }
      case 2:
      case 3: {  // with a broadcast operand: some dims 1, maybe fewer
        std::vector<int64_t> other(shape.begin() + Uniform(0, rank - 1),
                                   shape.end());
        for (int64_t& d : other) {
          if (Uniform(0, 2) == 0) d = 1;
        }
        ir::ValueId y = Uniform(0, 1) ? NewInput(other) : x;
        if (Uniform(0, 1)) std::swap(x, y);
        K op = kBinary[Uniform(0, std::size(kBinary) - 1)];
        description += StrCat(ir::GetOp(op).name, " ");
        return One(op, {x, y});
      }
      case 4: {  // matmul with a new [K, N] (or batched) operand
        std::vector<int64_t> b = {shape.back(), Uniform(1, 9)};
        if (rank < 2) return absl::InvalidArgumentError("vector");
        if (rank > 2 && Uniform(0, 1)) {
          b.insert(b.begin(), shape[rank - 3]);
        }
        description += "matmul ";
        return One(K::kMatmul, {x, NewInput(b)});
      }
      case 5: {  // a reduction over some axes
        static const K kReduce[] = {K::kReduceSum,      K::kReduceMean,
                                    K::kReduceMax,      K::kReduceMin,
                                    K::kReduceL2,       K::kReduceSumSquare,
                                    K::kReduceLogSumExp};
        std::vector<int64_t> axes;
        for (int d = 0; d < rank; ++d) {
          if (Uniform(0, 1)) axes.push_back(d);
        }
        a.Set("axes", axes);
        a.Set("keepDimensions", Uniform(0, 1) == 1);
        K op = kReduce[Uniform(0, std::size(kReduce) - 1)];
        description += StrCat(ir::GetOp(op).name, " ");
        return One(op, {x}, a);
      }
      case 6: {
        a.Set("axis", int64_t{Uniform(0, rank - 1)});
        description += "softmax ";
        return One(K::kSoftmax, {x}, a);
      }
      case 7: {
        std::vector<int64_t> perm(rank);
        for (int d = 0; d < rank; ++d) perm[d] = d;
        std::shuffle(perm.begin(), perm.end(), rng_);
        a.Set("permutation", perm);
        description += "transpose ";
        return One(K::kTranspose, {x}, a);
      }
      case 8: {
        std::vector<int64_t> starts(rank), sizes(rank);
        for (int d = 0; d < rank; ++d) {
          starts[d] = Uniform(0, static_cast<int>(shape[d]) - 1);
          sizes[d] = Uniform(1, static_cast<int>(shape[d] - starts[d]));
        }
        a.Set("starts", starts);
        a.Set("sizes", sizes);
        description += "slice ";
        return One(K::kSlice, {x}, a);
      }
      case 9: {
        a.Set("axis", int64_t{Uniform(0, rank - 1)});
        description += "concat ";
        return One(K::kConcat, {x, x}, a);
      }
      default: {  // where(x > y, x, -x)
        ir::ValueId zero = NewInput({1});
        ASSIGN_OR_RETURN(ir::ValueId above, One(K::kGreater, {x, zero}));
        ASSIGN_OR_RETURN(ir::ValueId minus, One(K::kNeg, {x}));
        description += "greater+where ";
        return One(K::kWhere, {above, x, minus});
      }
    }
  }

  std::mt19937 rng_;
  ir::GraphBuilder builder_;
  std::vector<ir::ValueId> pool_;
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputs_;
};

TEST(BackendEquivalence, RandomGraphsAgree) {
  absl::StatusOr<std::unique_ptr<Backend>> cpu = CreateBackend("cpu");
  absl::StatusOr<std::unique_ptr<Backend>> vulkan = CreateBackend("vulkan");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_TRUE(vulkan.ok()) << vulkan.status();
  int compared = 0;
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    RandomGraph random(seed);
    std::string ops;
    ir::Graph graph = random.Build(ops);
    SCOPED_TRACE(StrCat("seed ", seed, ": ", ops));
    absl::StatusOr<std::unique_ptr<Executable>> a =
        (*cpu)->Compile(graph, CompileOptions{});
    absl::StatusOr<std::unique_ptr<Executable>> b =
        (*vulkan)->Compile(graph, CompileOptions{});
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    std::mt19937 values(seed);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (const auto& [name, shape] : random.inputs()) {
      int i = (*a)->FindInput(name), j = (*b)->FindInput(name);
      ASSERT_GE(i, 0);
      ASSERT_GE(j, 0);
      std::span<std::byte> in = (*a)->input(i);
      float* x = reinterpret_cast<float*>(in.data());
      for (size_t k = 0; k < in.size() / 4; ++k) x[k] = u(values);
      std::memcpy((*b)->input(j).data(), in.data(), in.size());
    }
    ASSERT_TRUE((*a)->Run().ok());
    ASSERT_TRUE((*b)->Run().ok());
    for (size_t o = 0; o < (*a)->outputs().size(); ++o) {
      const float* p = reinterpret_cast<const float*>((*a)->output(o).data());
      const float* q = reinterpret_cast<const float*>(
          (*b)->output((*b)->FindOutput((*a)->outputs()[o].name)).data());
      const size_t n = (*a)->output(o).size() / 4;
      for (size_t k = 0; k < n; ++k) {
        if (std::isnan(p[k]) && std::isnan(q[k])) continue;
        const float tolerance = 1e-4f * std::max(1.0f, std::fabs(p[k]));
        ASSERT_NEAR(p[k], q[k], tolerance) << "output " << o << "[" << k << "]";
      }
    }
    ++compared;
  }
  EXPECT_EQ(compared, 150);
}

}  // namespace
}  // namespace webnnm::backends
