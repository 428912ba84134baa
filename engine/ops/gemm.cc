// gemm: y = alpha * A' * B' + beta * C for 2-D A and B, where A' and B' are
// A and B transposed when aTranspose / bTranspose.
// Operands: a, b (float32, float16; rank 2), c (optional; broadcasts to
// [M, N]). Batched matrices (the specification's): an `a` of rank 3 or
// more is a stack of matrices in its last two dimensions (the leading ones
// kept), multiplied by the one 2-D `b`, [..., M, N]; the DAG decomposes it
// into matmul, mul and add (WebNN's gemm is 2-D only). Options: alpha, beta (default 1), aTranspose, bTranspose
// (default false). A trainable b gets [K, N] ([N, K] when bTranspose), N
// from the layer's declared output shape; a trainable c gets [N] (zeros).
// Result: the operands' type, [M, N].
#include "engine/ir/graph_ops.h"
#include "engine/ir/rewriter.h"
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status GemmGradient(GradientBuilder& g) {
  // y = alpha A B + beta c with A = a or a^T, B = b or b^T.
  double alpha = g.attrs().GetFloat("alpha", 1.0);
  double beta = g.attrs().GetFloat("beta", 1.0);
  bool a_transposed = g.attrs().GetBool("aTranspose", false);
  bool b_transposed = g.attrs().GetBool("bTranspose", false);
  ASSIGN_OR_RETURN(ValueId scaled, g.MulScalar(g.dy(), alpha));
  if (g.wants(0)) {
    // dA = alpha dy B^T; da = dA or dA^T.
    ValueId grad;
    if (a_transposed) {
      // da = B dy^T (alpha folded in).
      ASSIGN_OR_RETURN(ValueId B, b_transposed
                                      ? g.TransposeLast2(g.x(1))
                                      : absl::StatusOr<ValueId>(g.x(1)));
      ASSIGN_OR_RETURN(ValueId dyT, g.TransposeLast2(scaled));
      ASSIGN_OR_RETURN(grad, g.Matmul(B, dyT));
    } else {
      ASSIGN_OR_RETURN(ValueId BT, b_transposed
                                       ? absl::StatusOr<ValueId>(g.x(1))
                                       : g.TransposeLast2(g.x(1)));
      ASSIGN_OR_RETURN(grad, g.Matmul(scaled, BT));
    }
    RETURN_IF_ERROR(g.Set(0, grad));
  }
  if (g.wants(1)) {
    // dB = alpha A^T dy; db = dB or dB^T = alpha dy^T A.
    ValueId grad;
    if (b_transposed) {
      ASSIGN_OR_RETURN(ValueId A, a_transposed
                                      ? g.TransposeLast2(g.x(0))
                                      : absl::StatusOr<ValueId>(g.x(0)));
      ASSIGN_OR_RETURN(ValueId dyT, g.TransposeLast2(scaled));
      ASSIGN_OR_RETURN(grad, g.Matmul(dyT, A));
    } else {
      ASSIGN_OR_RETURN(ValueId AT, a_transposed
                                       ? absl::StatusOr<ValueId>(g.x(0))
                                       : g.TransposeLast2(g.x(0)));
      ASSIGN_OR_RETURN(grad, g.Matmul(AT, scaled));
    }
    RETURN_IF_ERROR(g.Set(1, grad));
  }
  if (g.wants(2)) RETURN_IF_ERROR(g.Set(2, g.MulScalar(g.dy(), beta)));
  return absl::OkStatus();
}

absl::StatusOr<Types> InferGemm(const InferContext& c) {
  absl::Status status = c.operand(0).rank() >= 2
                            ? absl::OkStatus()
                            : CheckRankIs(c, 0, 2);
  if (status.ok()) status = CheckRankIs(c, 1, 2);
  if (!status.ok()) return status;
  const TensorType& a = c.operand(0);
  const TensorType& b = c.operand(1);
  bool ta = c.attrs.GetBool("aTranspose", false);
  bool tb = c.attrs.GetBool("bTranspose", false);
  const int r = a.rank();  // the matrices: the last two dimensions
  int64_t m = a.shape[r - (ta ? 1 : 2)], k_a = a.shape[r - (ta ? 2 : 1)];
  int64_t k_b = b.shape[tb ? 1 : 0], n = b.shape[tb ? 0 : 1];
  if (k_a != k_b) {
    return OperandError(
        1, StrCat("gemm inner dimensions differ: a is ",
                  ir::ShapeToString(a.shape), ta ? " (transposed)" : "",
                  " and b is ", ir::ShapeToString(b.shape),
                  tb ? " (transposed)" : ""));
  }
  TensorType out;
  out.dtype = a.dtype;
  out.shape.assign(a.shape.begin(), a.shape.end() - 2);
  out.shape.push_back(m);
  out.shape.push_back(n);
  if (a.has_names() && b.has_names()) {
    out.names.assign(a.names.begin(), a.names.end() - 2);
    out.names.push_back(a.names[r - (ta ? 1 : 2)]);
    out.names.push_back(b.names[tb ? 0 : 1]);
  }
  if (c.has(2)) {
    status = CheckUnidirectional(c.operand(2), out.shape, 2, "gemm c");
    if (!status.ok()) return status;
  }
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveGemm(const InferContext& c,
                                     const TensorType* expected, int slot) {
  if (!c.has(0) || c.operand(0).rank() < 2) {
    return absl::InvalidArgumentError("gemm needs an input of rank 2 or more");
  }
  const TensorType& a = c.operand(0);
  const int r = a.rank();
  bool ta = c.attrs.GetBool("aTranspose", false);
  bool tb = c.attrs.GetBool("bTranspose", false);
  int64_t n = -1;
  std::string n_name;
  if (c.has(1)) {
    n = c.operand(1).shape[tb ? 0 : 1];
    if (c.operand(1).has_names()) n_name = c.operand(1).names[tb ? 0 : 1];
  } else if (expected != nullptr && expected->rank() >= 1) {
    n = expected->shape[expected->rank() - 1];
    if (expected->has_names()) n_name = expected->names[expected->rank() - 1];
  }
  if (n < 1) {
    return absl::InvalidArgumentError(
        "gemm cannot infer its parameters without the layer's output shape");
  }
  TensorType p;
  if (slot == 1) {
    int64_t k = a.shape[r - (ta ? 2 : 1)];
    if (ir::IsSymbolic(k)) {
      return absl::InvalidArgumentError(
          "gemm weights cannot span the batch dimension");
    }
    p.shape = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
    if (a.has_names() && !n_name.empty()) {
      std::string k_name = a.names[r - (ta ? 2 : 1)];
      p.names = tb ? std::vector<std::string>{n_name, k_name}
                   : std::vector<std::string>{k_name, n_name};
    }
  } else {
    p.shape = {n};
    if (!n_name.empty()) p.names = {n_name};
  }
  return p;
}

// Batched gemm (rank > 2) as matmul, mul and add; 2-D gemm stays.
absl::Status DecomposeGemm(ir::GraphRewriter& rw, int id) {
  const ir::Node node = rw.graph().node(id);  // a copy: the graph grows
  if (rw.Type(node.operands[0]).rank() <= 2) return absl::OkStatus();
  ir::GraphOps ops(rw, "gemm");
  ValueId a = node.operands[0], b = node.operands[1];
  if (node.attrs.GetBool("aTranspose", false)) {
    ASSIGN_OR_RETURN(a, ops.TransposeLast2(a));
  }
  if (node.attrs.GetBool("bTranspose", false)) {
    ASSIGN_OR_RETURN(b, ops.TransposeLast2(b));
  }
  ASSIGN_OR_RETURN(ValueId y, ops.Matmul(a, b));
  const double alpha = node.attrs.GetFloat("alpha", 1.0);
  if (alpha != 1.0) {
    ASSIGN_OR_RETURN(y, ops.MulScalar(y, alpha));
  }
  ValueId c = node.operands.size() > 2 ? node.operands[2] : ir::kNoValue;
  if (c != ir::kNoValue) {
    const double beta = node.attrs.GetFloat("beta", 1.0);
    if (beta != 1.0) {
      ASSIGN_OR_RETURN(c, ops.MulScalar(c, beta));
    }
    ASSIGN_OR_RETURN(y, ops.Add(y, c));
  }
  rw.Replace(id, {y});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& GemmOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGemm,
      .name = "gemm",
      .category = ir::OpCategory::kMatrix,
      .operands = {{.name = "a", .types = ir::kFloatTypes},
                   {.name = "b",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kWeight},
                   {.name = "c",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "alpha", .kind = ir::AttrKind::kFloat},
                {.name = "beta", .kind = ir::AttrKind::kFloat},
                {.name = "aTranspose", .kind = ir::AttrKind::kBool},
                {.name = "bTranspose", .kind = ir::AttrKind::kBool}},
      .infer = InferGemm,
      .solve = SolveGemm,
      .decompose = DecomposeGemm,
      .gradient = GemmGradient};
  return def;
}

}  // namespace webnnm::ops
