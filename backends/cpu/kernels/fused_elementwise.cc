#include "backends/cpu/kernels/fused_elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/exp_floats.h"
#include "backends/cpu/kernels/fused_elementwise_program.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

using K = ir::OpKind;
// Elements a block: the program runs instruction by instruction over one
// block, so the loop and dispatch cost of each instruction is shared by
// this many elements (128 measured 103 µs on the 784×128 optimizer update,
// 512 71 µs, 1024 86 µs: the registers then spill out of L1).
constexpr int64_t kBlock = 512;

// What one operation reads and how it computes (nothing: not supported).
struct Signature {
  Code code;
  ir::DType in;  // of every operand (where: of the two values)
  ir::DType out;
  int operands;
};

std::optional<Signature> SignatureOf(const ir::Node& node) {
  constexpr ir::DType f = ir::DType::kFloat32, u = ir::DType::kUint8;
  switch (node.op->kind) {
    case K::kAdd:
      return Signature{Code::kAdd, f, f, 2};
    case K::kSub:
      return Signature{Code::kSub, f, f, 2};
    case K::kMul:
      return Signature{Code::kMul, f, f, 2};
    case K::kDiv:
      return Signature{Code::kDiv, f, f, 2};
    case K::kMax:
      return Signature{Code::kMax, f, f, 2};
    case K::kMin:
      return Signature{Code::kMin, f, f, 2};
    case K::kEqual:
      return Signature{Code::kEqual, f, u, 2};
    case K::kNotEqual:
      return Signature{Code::kNotEqual, f, u, 2};
    case K::kGreater:
      return Signature{Code::kGreater, f, u, 2};
    case K::kGreaterOrEqual:
      return Signature{Code::kGreaterOrEqual, f, u, 2};
    case K::kLesser:
      return Signature{Code::kLesser, f, u, 2};
    case K::kLesserOrEqual:
      return Signature{Code::kLesserOrEqual, f, u, 2};
    case K::kLogicalAnd:
      return Signature{Code::kLogicalAnd, u, u, 2};
    case K::kLogicalOr:
      return Signature{Code::kLogicalOr, u, u, 2};
    case K::kLogicalXor:
      return Signature{Code::kLogicalXor, u, u, 2};
    case K::kLogicalNot:
      return Signature{Code::kLogicalNot, u, u, 1};
    case K::kAbs:
      return Signature{Code::kAbs, f, f, 1};
    case K::kNeg:
      return Signature{Code::kNeg, f, f, 1};
    case K::kSign:
      return Signature{Code::kSign, f, f, 1};
    case K::kRelu:
      return Signature{Code::kRelu, f, f, 1};
    case K::kSqrt:
      return Signature{Code::kSqrt, f, f, 1};
    case K::kReciprocal:
      return Signature{Code::kReciprocal, f, f, 1};
    case K::kSoftsign:
      return Signature{Code::kSoftsign, f, f, 1};
    case K::kFloor:
      return Signature{Code::kFloor, f, f, 1};
    case K::kCeil:
      return Signature{Code::kCeil, f, f, 1};
    case K::kClamp:
      return Signature{Code::kClamp, f, f, 1};
    case K::kLeakyRelu:
      return Signature{Code::kLeakyRelu, f, f, 1};
    case K::kIsNaN:
      return Signature{Code::kIsNaN, f, u, 1};
    case K::kIsInfinite:
      return Signature{Code::kIsInfinite, f, u, 1};
    case K::kExp:
      return Signature{Code::kExp, f, f, 1};
    case K::kSigmoid:
      return Signature{Code::kSigmoid, f, f, 1};
    case K::kWhere:
      return Signature{Code::kWhere, f, f, 3};
    case K::kCast:
      return Signature{Code::kCopy, u, f, 1};
    case K::kIdentity:
    case K::kExpand:  // float32 or uint8, kept as it is
      return Signature{Code::kCopy, f, f, 1};
    default:
      return std::nullopt;
  }
}

// Whether the operand and result types of `node` are its signature's.
bool TypesMatch(const ir::Graph& graph, const ir::Node& node,
                const Signature& s) {
  if (static_cast<int>(node.operands.size()) != s.operands) return false;
  const ir::DType out = graph.value(node.outputs[0]).type.dtype;
  auto dtype = [&](int i) {
    return node.operands[i] == ir::kNoValue
               ? ir::DType::kInt64  // absent: never a match
               : graph.value(node.operands[i]).type.dtype;
  };
  if (node.op->kind == K::kIdentity || node.op->kind == K::kExpand) {
    return (out == ir::DType::kFloat32 || out == ir::DType::kUint8) &&
           dtype(0) == out;
  }
  if (out != s.out) return false;
  for (int i = 0; i < s.operands; ++i) {
    const ir::DType want =
        node.op->kind == K::kWhere && i == 0 ? ir::DType::kUint8 : s.in;
    if (dtype(i) != want) return false;
  }
  return true;
}

// Where a register's values live. Float32 tensors of the group's shape,
// read from outside or stored for outside readers, are used in place (the
// register moves along them block by block); the others have a row of
// kBlock floats: one-element operands (filled once a run), uint8 tensors
// (converted on the way in and out), and values only members read.
struct Register {
  std::byte* data = nullptr;  // the tensor, or nullptr: a row only
  bool byte = false;          // data is uint8
  bool one = false;           // data holds one element for all
  bool result = false;        // a member's result (else read from outside)
  // A smaller operand broadcast to the group's shape: the element of data
  // each element of the group reads.
  std::vector<int32_t> gather = {};
  int64_t elements = 0;  // of data, when gathered
};

inline float Nan() { return std::numeric_limits<float>::quiet_NaN(); }

}  // namespace

void ExecuteScalar(const Instruction& in, float* const* at, int64_t n) {
  float* d = at[in.dst];
  const float* a = at[in.a];
  const float* b = at[in.b];
  const float* c = at[in.c];
  switch (in.code) {
#define WEBNNM_EACH(expression)                        \
  for (int64_t i = 0; i < n; ++i) d[i] = (expression); \
  break
    case Code::kAdd:
      WEBNNM_EACH(a[i] + b[i]);
    case Code::kSub:
      WEBNNM_EACH(a[i] - b[i]);
    case Code::kMul:
      WEBNNM_EACH(a[i] * b[i]);
    case Code::kDiv:
      WEBNNM_EACH(a[i] / b[i]);
    case Code::kMax:
      WEBNNM_EACH(std::isnan(a[i]) || std::isnan(b[i]) ? Nan()
                  : a[i] < b[i]                        ? b[i]
                                                       : a[i]);
    case Code::kMin:
      WEBNNM_EACH(std::isnan(a[i]) || std::isnan(b[i]) ? Nan()
                  : b[i] < a[i]                        ? b[i]
                                                       : a[i]);
    case Code::kEqual:
      WEBNNM_EACH(float(a[i] == b[i]));
    case Code::kNotEqual:
      WEBNNM_EACH(float(a[i] != b[i]));
    case Code::kGreater:
      WEBNNM_EACH(float(a[i] > b[i]));
    case Code::kGreaterOrEqual:
      WEBNNM_EACH(float(a[i] >= b[i]));
    case Code::kLesser:
      WEBNNM_EACH(float(a[i] < b[i]));
    case Code::kLesserOrEqual:
      WEBNNM_EACH(float(a[i] <= b[i]));
    case Code::kLogicalAnd:
      WEBNNM_EACH(float((a[i] != 0) & (b[i] != 0)));
    case Code::kLogicalOr:
      WEBNNM_EACH(float((a[i] != 0) | (b[i] != 0)));
    case Code::kLogicalXor:
      WEBNNM_EACH(float((a[i] != 0) != (b[i] != 0)));
    case Code::kLogicalNot:
      WEBNNM_EACH(float(a[i] == 0));
    case Code::kAbs:
      WEBNNM_EACH(a[i] < 0.0f ? -a[i] : a[i]);
    case Code::kNeg:
      WEBNNM_EACH(-a[i]);
    case Code::kSign:
      WEBNNM_EACH(std::isnan(a[i]) ? a[i]
                  : a[i] > 0.0f    ? 1.0f
                                   : (a[i] < 0.0f ? -1.0f : 0.0f));
    case Code::kRelu:
      WEBNNM_EACH(a[i] > 0.0f ? a[i] : 0.0f);
    case Code::kSqrt:
      WEBNNM_EACH(std::sqrt(a[i]));
    case Code::kReciprocal:
      WEBNNM_EACH(1.0f / a[i]);
    case Code::kSoftsign:
      WEBNNM_EACH(a[i] / (1.0f + std::fabs(a[i])));
    case Code::kFloor:
      WEBNNM_EACH(std::floor(a[i]));
    case Code::kCeil:
      WEBNNM_EACH(std::ceil(a[i]));
    case Code::kCopy:
      WEBNNM_EACH(a[i]);
    case Code::kClamp: {
      const float low = in.p, high = in.q;
      for (int64_t i = 0; i < n; ++i) {
        const float y = a[i] < low ? low : a[i];
        d[i] = y > high ? high : y;
      }
      break;
    }
    case Code::kLeakyRelu: {
      const float alpha = in.p;
      WEBNNM_EACH(a[i] >= 0.0f ? a[i] : alpha * a[i]);
    }
    case Code::kIsNaN:
      WEBNNM_EACH(float(std::isnan(a[i])));
    case Code::kIsInfinite:
      WEBNNM_EACH(float(std::isinf(a[i])));
    case Code::kExp:
      ExpFloats(a, d, n);
      break;
    case Code::kSigmoid:
      SigmoidFloats(a, d, n);
      break;
    case Code::kWhere:
      WEBNNM_EACH(a[i] != 0 ? b[i] : c[i]);
      // The product rounded before the sum: the kernels are built without
      // contraction (-ffp-contract=off, or the ISO default of a generic
      // build), and the product is its own statement, which clang's
      // default (contracting within one expression) leaves alone.
#define WEBNNM_PRODUCT_THEN(expression) \
  for (int64_t i = 0; i < n; ++i) {     \
    const float product = a[i] * b[i];  \
    d[i] = (expression);                \
  }                                     \
  break
    case Code::kMulAdd:
      WEBNNM_PRODUCT_THEN(product + c[i]);
    case Code::kAddMul:
      WEBNNM_PRODUCT_THEN(c[i] + product);
    case Code::kMulSub:
      WEBNNM_PRODUCT_THEN(product - c[i]);
    case Code::kSubMul:
      WEBNNM_PRODUCT_THEN(c[i] - product);
#undef WEBNNM_PRODUCT_THEN
#undef WEBNNM_EACH
  }
}

namespace {

// Whether the kernel walks a register along its tensor (float32 of the
// group's shape) rather than keeping a row of its own.
bool IsInPlace(const Register& g) {
  return g.data != nullptr && !g.one && g.gather.empty() && !g.byte;
}

// The most one-element where conditions a kernel specializes its program
// for (2^3 programs at most); others are computed.
constexpr size_t kMaxConditions = 3;

class FusedElementwiseKernel : public Kernel {
 public:
  FusedElementwiseKernel(int64_t count, std::vector<Register> registers,
                         std::vector<Instruction> program)
      : count_(count),
        operations_(program.size()),
        registers_(std::move(registers)),
        rows_(registers_.size() * kBlock),
        at_(registers_.size()) {
    for (size_t r = 0; r < registers_.size(); ++r) {
      const Register& g = registers_[r];
      at_[r] = rows_.data() + r * kBlock;
      if (g.one) {
        ones_.push_back(r);
      } else if (!g.gather.empty()) {
        gathers_.push_back(r);
      } else if (g.byte && g.data) {
        (g.result ? byte_out_ : byte_in_).push_back(r);
      } else if (g.data) {
        in_place_.push_back(r);
      }
    }
    MakePrograms(program);
  }

  absl::Status Run() override {
    float** at = at_.data();
    for (size_t r : ones_) FillRow(at[r], One(r), std::min(count_, kBlock));
    size_t variant = 0;  // by the value of each condition
    for (size_t k = 0; k < conditions_.size(); ++k) {
      if (One(conditions_[k]) != 0) variant |= size_t{1} << k;
    }
    const std::vector<Instruction>& program = programs_[variant];
    for (int64_t base = 0; base < count_; base += kBlock) {
      const int64_t n = std::min(kBlock, count_ - base);
      for (size_t r : in_place_) {
        at[r] = reinterpret_cast<float*>(registers_[r].data) + base;
      }
      for (size_t r : gathers_) {
        const Register& g = registers_[r];
        const int32_t* index = g.gather.data() + base;
        if (g.byte) {
          const uint8_t* from = reinterpret_cast<uint8_t*>(g.data);
          for (int64_t i = 0; i < n; ++i) at[r][i] = from[index[i]];
        } else {
          GatherRow(at[r], reinterpret_cast<float*>(g.data), g.elements, index,
                    n);
        }
      }
      for (size_t r : byte_in_) {
        WidenBytes(at[r], reinterpret_cast<uint8_t*>(registers_[r].data) + base,
                   n);
      }
      for (const Instruction& in : program) in.run(in, at, n);
      for (size_t r : byte_out_) {
        NarrowBytes(reinterpret_cast<uint8_t*>(registers_[r].data) + base,
                    at[r], n);
      }
    }
    return absl::OkStatus();
  }

  std::string implementation() const override {
    return StrCat("C++ (", operations_, " operations in one pass)");
  }

 private:
  // The value of one-element register r for this run.
  float One(size_t r) const {
    const Register& g = registers_[r];
    return g.byte ? float(*reinterpret_cast<const uint8_t*>(g.data))
                  : *reinterpret_cast<const float*>(g.data);
  }

  // programs_: the members' program rewritten for each value of the
  // one-element where conditions (fused_elementwise_program.h), each
  // instruction with its function.
  void MakePrograms(const std::vector<Instruction>& program) {
    std::vector<RegisterFacts> facts(registers_.size());
    for (size_t r = 0; r < registers_.size(); ++r) {
      const Register& g = registers_[r];
      facts[r].scratch = g.result && g.data == nullptr;
      if (IsInPlace(g)) {
        facts[r].begin = g.data;
        facts[r].end = g.data + count_ * static_cast<int64_t>(sizeof(float));
      }
    }
    for (const Instruction& in : program) {
      if (in.code == Code::kWhere && registers_[in.a].one &&
          conditions_.size() < kMaxConditions &&
          std::find(conditions_.begin(), conditions_.end(), size_t(in.a)) ==
              conditions_.end()) {
        conditions_.push_back(in.a);
      }
    }
    for (size_t variant = 0; variant < (size_t{1} << conditions_.size());
         ++variant) {
      std::vector<int> condition(registers_.size(), -1);
      for (size_t k = 0; k < conditions_.size(); ++k) {
        condition[conditions_[k]] = (variant >> k) & 1;
      }
      std::vector<Instruction> p = JoinMultiplyThenAdd(
          SpecializeWheres(program, facts, condition), facts);
      for (Instruction& in : p) {
        auto row = [&](int r) { return !IsInPlace(registers_[r]); };
        in.rows = (row(in.dst) ? 1 : 0) | (row(in.a) ? 2 : 0) |
                  (row(in.b) ? 4 : 0) | (row(in.c) ? 8 : 0);
        in.run = VectorInstruction(in.code);
        if (in.run == nullptr) in.run = ExecuteScalar;
      }
      programs_.push_back(std::move(p));
    }
  }

  int64_t count_;
  size_t operations_;  // the group's members
  std::vector<Register> registers_;
  std::vector<size_t> conditions_;  // one-element registers wheres test
  std::vector<std::vector<Instruction>> programs_;  // by their values
  std::vector<float> rows_;  // kBlock floats per register
  std::vector<float*> at_;   // where each register's block is
  std::vector<size_t> ones_, gathers_, byte_in_, byte_out_, in_place_;
};

// For an operand of `from` broadcast to `to`: the operand's element that
// each element of `to` reads.
absl::StatusOr<std::vector<int32_t>> GatherIndex(
    const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) {
    return absl::InvalidArgumentError("an operand of higher rank");
  }
  for (size_t k = 0; k < from.size(); ++k) {
    const int64_t d = from[from.size() - 1 - k];
    if (d != 1 && d != to[to.size() - 1 - k]) {
      return absl::InvalidArgumentError(
          "an operand that does not broadcast to the group's shape");
    }
  }
  return BroadcastOffsets(BroadcastStrides(from, to), to);
}

}  // namespace

bool FusedElementwiseSupports(const ir::Graph& graph, const ir::Node& node) {
  if (node.kind != ir::NodeKind::kOp || node.outputs.size() != 1) {
    return false;
  }
  std::optional<Signature> s = SignatureOf(node);
  return s && TypesMatch(graph, node, *s);
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeFusedElementwiseKernel(
    const FusedElementwiseIO& io) {
  const ir::Graph& graph = io.graph;
  if (io.members.empty()) {
    return absl::InvalidArgumentError("an element-wise group with no members");
  }
  const std::vector<int64_t>& shape =
      graph.value(graph.node(io.members.front()).outputs[0]).type.shape;
  const int64_t count = ElementCount(shape);
  std::vector<int> row_of(graph.num_values(), -1);
  std::vector<Register> registers;
  std::vector<Instruction> program;
  for (ir::NodeId id : io.members) {
    const ir::Node& node = graph.node(id);
    if (!FusedElementwiseSupports(graph, node)) {
      return absl::InvalidArgumentError(
          StrCat(node.op->name, " is not an operation the fused kernel runs"));
    }
    if (graph.value(node.outputs[0]).type.shape != shape) {
      return absl::InvalidArgumentError(
          StrCat(node.op->name, " does not have the group's shape"));
    }
    Instruction in{SignatureOf(node)->code};
    int* slots[] = {&in.a, &in.b, &in.c};
    for (size_t k = 0; k < node.operands.size(); ++k) {
      const ir::ValueId v = node.operands[k];
      const ir::TensorType& type = graph.value(v).type;
      if (row_of[v] < 0) {  // from outside the group
        const bool one = type.shape != shape && ElementCount(type.shape) == 1;
        row_of[v] = static_cast<int>(registers.size());
        registers.push_back(
            {io.address[v], type.dtype == ir::DType::kUint8, one});
        if (!one && type.shape != shape) {
          ASSIGN_OR_RETURN(registers.back().gather,
                           GatherIndex(type.shape, shape));
          registers.back().elements = ElementCount(type.shape);
        }
      }
      *slots[k] = row_of[v];
    }
    if (in.code == Code::kClamp) {
      double low = node.attrs.GetFloat(
          "minValue", -std::numeric_limits<double>::infinity());
      double high = node.attrs.GetFloat(
          "maxValue", std::numeric_limits<double>::infinity());
      if (std::isnan(low)) low = -std::numeric_limits<double>::infinity();
      if (std::isnan(high)) high = std::numeric_limits<double>::infinity();
      in.p = static_cast<float>(low);
      in.q = static_cast<float>(high);
    } else if (in.code == Code::kLeakyRelu) {
      in.p = static_cast<float>(node.attrs.GetFloat("alpha", 0.01));
    }
    const ir::ValueId out = node.outputs[0];
    in.dst = row_of[out] = static_cast<int>(registers.size());
    registers.push_back({io.stored[out] ? io.address[out] : nullptr,
                         graph.value(out).type.dtype == ir::DType::kUint8,
                         /*one=*/false, /*result=*/true});
    program.push_back(in);
  }
  return std::make_unique<FusedElementwiseKernel>(count, std::move(registers),
                                                  std::move(program));
}

}  // namespace webnnm::backends::cpu
