// matmul: matrix products of the last two dimensions, [..., M, K] x
// [..., K, N] -> [..., M, N], leading (batch) dimensions broadcast.
// Operands: a, b (float32, float16; the same type; rank >= 2).
// A trainable b (a dense layer's weights) gets shape [K, N], N from the
// layer's declared output shape, and He or Glorot initialisation by the
// activation that follows.
// Result: the operands' type, the broadcast batch dimensions + [M, N].
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status MatmulGradient(GradientBuilder& g) {
  // y = a b: da = dy b^T, db = a^T dy (Set() sums broadcast batch dims).
  if (g.wants(0)) {
    ASSIGN_OR_RETURN(ValueId bT, g.TransposeLast2(g.x(1)));
    RETURN_IF_ERROR(g.Set(0, g.Matmul(g.dy(), bT)));
  }
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId aT, g.TransposeLast2(g.x(0)));
    RETURN_IF_ERROR(g.Set(1, g.Matmul(aT, g.dy())));
  }
  return absl::OkStatus();
}

absl::StatusOr<Types> InferMatmul(const InferContext& c) {
  absl::Status status = CheckRank(c, 0, 2, 1000);
  if (status.ok()) status = CheckRank(c, 1, 2, 1000);
  if (!status.ok()) return status;
  const TensorType& a = c.operand(0);
  const TensorType& b = c.operand(1);
  int64_t k_a = a.shape[a.rank() - 1];
  int64_t k_b = b.shape[b.rank() - 2];
  if (k_a != k_b) {
    return OperandError(1, StrCat("matmul inner dimensions differ: a is ",
                                  ir::ShapeToString(a.shape), " and b is ",
                                  ir::ShapeToString(b.shape)));
  }
  // Broadcast the batch dimensions (all but the last two).
  TensorType batch_a = a, batch_b = b;
  batch_a.shape.resize(a.rank() - 2);
  batch_b.shape.resize(b.rank() - 2);
  if (a.has_names()) batch_a.names.resize(a.rank() - 2);
  if (b.has_names()) batch_b.names.resize(b.rank() - 2);
  if (!batch_a.has_names()) batch_a.names.clear();
  if (!batch_b.has_names()) batch_b.names.clear();
  batch_a.channel_axis = batch_b.channel_axis = -1;
  absl::StatusOr<TensorType> out = BroadcastTypes(batch_a, batch_b, a.dtype, 1);
  if (!out.ok()) return out.status();
  out->shape.push_back(a.shape[a.rank() - 2]);
  out->shape.push_back(b.shape[b.rank() - 1]);
  bool names = a.has_names() && b.has_names() &&
               (out->names.size() + 2 == out->shape.size());
  if (names) {
    out->names.push_back(a.names[a.rank() - 2]);
    out->names.push_back(b.names[b.rank() - 1]);
  } else {
    out->names.clear();
  }
  out->channel_axis = -1;
  return Result(c, *std::move(out));
}

// b = [K, N]: K from a, N from the expected output.
absl::StatusOr<TensorType> SolveMatmul(const InferContext& c,
                                       const TensorType* expected, int slot) {
  if (slot != 1 || !c.has(0) || c.operand(0).rank() < 1) {
    return absl::InvalidArgumentError("matmul can infer only its b operand");
  }
  if (expected == nullptr || expected->rank() < 1) {
    return absl::InvalidArgumentError(
        "matmul cannot infer its weights without the layer's output shape");
  }
  const TensorType& a = c.operand(0);
  int64_t k = a.shape[a.rank() - 1];
  int64_t n = expected->shape[expected->rank() - 1];
  if (ir::IsSymbolic(k) || ir::IsSymbolic(n)) {
    return absl::InvalidArgumentError(
        "matmul weights cannot span the batch or sequence dimension");
  }
  TensorType b;
  b.shape = {k, n};
  if (a.has_names() && expected->has_names()) {
    b.names = {a.names[a.rank() - 1], expected->names[expected->rank() - 1]};
  }
  return b;
}

}  // namespace

const ir::OpDef& MatmulOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kMatmul,
      .name = "matmul",
      .category = ir::OpCategory::kMatrix,
      .operands = {{.name = "a", .types = ir::kFloatTypes},
                   {.name = "b",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kWeight}},
      .infer = InferMatmul,
      .solve = SolveMatmul,
      .gradient = MatmulGradient};
  return def;
}

}  // namespace webnnm::ops
