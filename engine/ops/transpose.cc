// transpose: permutes the dimensions: output dimension i is input dimension
// permutation[i].
// Operand: input (any type). Option: permutation (default: reversed; the
// model language keeps batch and sequence in place unless it names them).
// Result: the input's type, permuted shape and names.
#include <algorithm>

#include "absl/strings/str_join.h"
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status TransposeGradient(GradientBuilder& g) {
  int rank = g.type(g.x(0)).rank();
  std::vector<int64_t> reversed;
  for (int i = rank - 1; i >= 0; --i) reversed.push_back(i);
  std::vector<int> perm;
  for (int64_t p : g.attrs().GetInts("permutation", reversed)) {
    perm.push_back(static_cast<int>(p));
  }
  return g.Set(0, g.Transpose(g.dy(), ir::InversePermutation(perm)));
}

absl::StatusOr<Types> InferTranspose(const InferContext& c) {
  const TensorType& input = c.operand(0);
  int rank = input.rank();
  std::vector<int64_t> reversed(rank);
  for (int i = 0; i < rank; ++i) reversed[i] = rank - 1 - i;
  std::vector<int64_t> perm = c.attrs.GetInts("permutation", reversed);
  if (static_cast<int>(perm.size()) != rank) {
    return AttrError("permutation",
                     StrCat("transpose permutation has ", perm.size(),
                            " entries but the input has rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  TensorType out;
  out.dtype = input.dtype;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return AttrError(
          "permutation",
          StrCat("transpose permutation [", absl::StrJoin(perm, ", "),
                 "] is not a permutation of 0..", rank - 1));
    }
    seen[p] = true;
    out.shape.push_back(input.shape[p]);
    if (input.has_names()) out.names.push_back(input.names[p]);
  }
  if (input.channel_axis >= 0) {
    auto it = std::find(perm.begin(), perm.end(), input.channel_axis);
    out.channel_axis = static_cast<int>(it - perm.begin());
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& TransposeOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kTranspose,
      .name = "transpose",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"}},
      .attrs = {{.name = "permutation", .kind = ir::AttrKind::kPermutation}},
      .infer = InferTranspose,
      .gradient = TransposeGradient};
  return def;
}

}  // namespace webnnm::ops
