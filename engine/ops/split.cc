// split: cuts the input along `axis` into several outputs.
// Operand: input (any type). Options: splits (required: a count that divides
// the dimension evenly, or a list of positive sizes that sum to it), axis
// (default 0; the model language defaults to the first feature dimension).
// Results: one per piece, the input's type.
#include "absl/strings/str_join.h"
#include "engine/ops/gradient_rules.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

namespace {

absl::Status SplitGradient(GradientBuilder& g) {
  // The gradients of the pieces, concatenated (zeros for unused pieces).
  int rank = g.type(g.x(0)).rank();
  int axis = static_cast<int>(g.attrs().GetInt("axis", 0));
  if (axis < 0) axis += rank;
  std::vector<ValueId> pieces;
  for (size_t i = 0; i < g.node().outputs.size(); ++i) {
    ValueId piece = g.dy(static_cast<int>(i));
    if (piece == ir::kNoValue) {
      ASSIGN_OR_RETURN(piece, g.Fill(0, g.shape(g.y(static_cast<int>(i))),
                                     g.type(g.x(0)).dtype));
    }
    pieces.push_back(piece);
  }
  if (pieces.size() == 1) return g.Set(0, pieces[0]);
  ir::Attrs attrs;
  attrs.Set("axis", int64_t{axis});
  return g.Set(0, g.Op(OpKind::kConcat, pieces, attrs));
}

// Each piece is a result to allocate and track: bound their number.
constexpr int64_t kMaxPieces = 4096;

absl::StatusOr<Types> InferSplit(const InferContext& c) {
  const TensorType& input = c.operand(0);
  if (input.rank() == 0) {
    return OperandError(0, "split needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", 0, input.rank());
  if (!axis.ok()) return axis.status();
  absl::StatusOr<int64_t> size = ConcreteDim(c, 0, *axis, "split");
  if (!size.ok()) return AttrError("axis", size.status());
  std::vector<int64_t> pieces;
  const ir::AttrValue* splits = c.attrs.Find("splits");
  if (splits != nullptr && std::holds_alternative<int64_t>(*splits)) {
    int64_t count = std::get<int64_t>(*splits);
    if (count > kMaxPieces) {
      return AttrError("splits",
                       StrCat("split makes more than ", kMaxPieces, " pieces"));
    }
    if (count <= 0 || *size % count != 0) {
      return AttrError(
          "splits", StrCat("split count ", count, " does not divide the size ",
                           *size, " of axis ", *axis, " evenly"));
    }
    pieces.assign(count, *size / count);
  } else if (splits != nullptr) {
    pieces = std::get<std::vector<int64_t>>(*splits);
    int64_t sum = 0;
    for (int64_t p : pieces) {
      if (p <= 0 || p > *size) {
        return AttrError("splits", StrCat("split sizes must be positive and "
                                          "at most ",
                                          *size, ", not ", p));
      }
      sum += p;  // each term is at most 2^31: no overflow for sane counts
      if (sum > *size) break;
    }
    if (pieces.empty() || sum != *size) {
      return AttrError("splits",
                       StrCat("split sizes [", absl::StrJoin(pieces, ", "),
                              "] must add up to ", *size));
    }
  } else {
    return AttrError("splits", "split needs 'splits'");
  }
  if (pieces.size() > static_cast<size_t>(kMaxPieces)) {
    return AttrError("splits",
                     StrCat("split makes more than ", kMaxPieces, " pieces"));
  }
  Types outputs;
  for (int64_t piece : pieces) {
    TensorType out = SameShape(c, 0, input.dtype);
    out.shape[*axis] = piece;
    absl::Status status = CheckResult(c, out);
    if (!status.ok()) return status;
    outputs.push_back(std::move(out));
  }
  return outputs;
}

}  // namespace

const ir::OpDef& SplitOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kSplit,
      .name = "split",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"}},
      .attrs = {{.name = "splits",
                 .kind = ir::AttrKind::kSplits,
                 .required = true},
                {.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kFirstFeatureAxis}},
      .infer = InferSplit,
      .gradient = SplitGradient};
  return def;
}

}  // namespace webnnm::ops
