// What the model language adds around gatherElements, scatterElements,
// gatherND and scatterND: their indices and coordinates address the
// features only (the specification's examples; docs/language.md), so a
// constant index tensor needs no batch. The input (and a scatter's
// updates) are transposed to put the batch and sequence dimensions last,
// an element-wise index tensor is expanded over them, the operation runs
// on the features in front, and its result is transposed back. gatherND and
// scatterND take axis=: the first feature their coordinates address (the
// features before it are copied over like the batch); element-wise indices
// with the batch but not the sequence are copied over the sequence.
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/dag/builder.h"

namespace webnnm::dag {
namespace {

bool IndexesFeatures(ir::OpKind kind) {
  return kind == ir::OpKind::kGatherElements ||
         kind == ir::OpKind::kScatterElements ||
         kind == ir::OpKind::kGatherND || kind == ir::OpKind::kScatterND;
}

// The leading batch and sequence dimensions of `type`.
int LeadingGlobal(const ir::TensorType& type) {
  int g = 0;
  while (g < type.rank() && ir::IsSymbolic(type.shape[g])) ++g;
  return g;
}

bool HasSymbolic(const ir::TensorType& type) {
  for (int64_t d : type.shape) {
    if (ir::IsSymbolic(d)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<ir::ValueId> DagBuilder::GlobalLast(ir::ValueId v, int global) {
  const int r = graph_.value(v).type.rank();
  std::vector<int64_t> perm;
  for (int i = global; i < r; ++i) perm.push_back(i);
  for (int i = 0; i < global; ++i) perm.push_back(i);
  ir::Attrs attrs;
  attrs.Set("permutation", perm);
  return rewriter_.Add(ir::OpKind::kTranspose, {v}, attrs);
}

absl::StatusOr<ir::ValueId> DagBuilder::InsertExpanded(
    ir::ValueId v, int at, const std::vector<int64_t>& dims) {
  const std::vector<int64_t>& shape = graph_.value(v).type.shape;
  std::vector<int64_t> ones(shape.begin(), shape.begin() + at);
  std::vector<int64_t> wide = ones;
  for (int64_t d : dims) {
    ones.push_back(1);
    wide.push_back(d);
  }
  ones.insert(ones.end(), shape.begin() + at, shape.end());
  wide.insert(wide.end(), shape.begin() + at, shape.end());
  ir::Attrs reshape, expand;
  reshape.Set("newShape", ones);
  expand.Set("newShape", wide);
  ASSIGN_OR_RETURN(ir::ValueId r,
                   rewriter_.Add(ir::OpKind::kReshape, {v}, reshape));
  return rewriter_.Add(ir::OpKind::kExpand, {r}, expand);
}

absl::StatusOr<ir::ValueId> DagBuilder::ExpandOverGlobal(
    ir::ValueId v, const std::vector<int64_t>& global) {
  return InsertExpanded(v, graph_.value(v).type.rank(), global);
}

bool DagBuilder::AdaptFeatureIndexing(const model::Layer& layer,
                                      std::vector<ir::ValueId>& operands,
                                      ir::Attrs& attrs, int& global) {
  global = 0;
  const ir::OpKind kind = layer.op->kind;
  if (!IndexesFeatures(kind) || operands.size() < 2 ||
      operands[1] == ir::kNoValue) {
    return true;
  }
  const ir::TensorType input = graph_.value(operands[0]).type;
  const ir::TensorType indices = graph_.value(operands[1]).type;
  const int g = LeadingGlobal(input);
  const bool elements = kind == ir::OpKind::kGatherElements ||
                        kind == ir::OpKind::kScatterElements;
  auto failed = [&](const absl::Status& s) {
    ReportRuleError(layer, s);
    return false;
  };
  // Element-wise indices that hold the batch but not the sequence (one set
  // of indices per sample: the specification's {vocabulary: 5} example)
  // are copied over the sequence, as are a scatter's updates of that shape.
  if (elements && HasSymbolic(indices) && LeadingGlobal(indices) < g &&
      indices.rank() - LeadingGlobal(indices) == input.rank() - g) {
    for (size_t slot = 1; slot < operands.size(); ++slot) {
      if (operands[slot] == ir::kNoValue) continue;
      const ir::TensorType& t = graph_.value(operands[slot]).type;
      if (t.rank() != indices.rank() || !HasSymbolic(t)) continue;
      // The input's batch and sequence dimensions that `t` lacks.
      const int have = LeadingGlobal(t);
      absl::StatusOr<ir::ValueId> filled =
          InsertExpanded(operands[slot], have,
                         std::vector<int64_t>(input.shape.begin() + have,
                                              input.shape.begin() + g));
      if (!filled.ok()) return failed(filled.status());
      operands[slot] = *filled;
    }
    return true;
  }
  // ND coordinates address the features from `axis` on (the first feature
  // by default); the dimensions before it are copied over like the batch.
  int lead = g;
  if (!elements && attrs.Has("axis")) {
    const int64_t axis = attrs.GetInt("axis", g);
    attrs.Erase("axis");
    if (g == 0 || HasSymbolic(indices) || axis < g) {
      diagnostics_.Error(layer.op_range,
                         StrCat(layer.op->name,
                                " axis= names the first "
                                "feature dimension its coordinates address; "
                                "it applies to coordinates over the features "
                                "(a constant or a parameter), and cannot be "
                                "the batch or the sequence",
                                layer.context));
      return false;
    }
    lead = static_cast<int>(axis);
  }
  // Indices that hold the batch themselves keep WebNN's meaning.
  if (g == 0 || HasSymbolic(indices) ||
      (elements && indices.rank() != input.rank() - g)) {
    return true;
  }
  if (!elements && indices.rank() >= 1 &&
      lead + indices.shape.back() > input.rank()) {
    diagnostics_.Error(
        layer.op_range,
        StrCat(layer.op->name, " coordinates have ", indices.shape.back(),
               " components, but the "
               "input has ",
               input.rank() - lead, " feature dimensions",
               lead > g ? " from its axis" : "", layer.context));
    return false;
  }
  const std::vector<int64_t> dims(input.shape.begin(),
                                  input.shape.begin() + lead);
  if (elements) {
    const int64_t axis = attrs.GetInt("axis", g);
    if (axis < g) {
      diagnostics_.Error(layer.op_range,
                         StrCat(layer.op->name, " indexes the features: its "
                                "axis cannot be the batch or the sequence",
                                layer.context));
      return false;
    }
    attrs.Set("axis", axis - g);
    absl::StatusOr<ir::ValueId> wide = ExpandOverGlobal(operands[1], dims);
    if (!wide.ok()) return failed(wide.status());
    operands[1] = *wide;
  }
  absl::StatusOr<ir::ValueId> moved = GlobalLast(operands[0], lead);
  if (!moved.ok()) return failed(moved.status());
  operands[0] = *moved;
  if (operands.size() > 2 && operands[2] != ir::kNoValue &&
      graph_.value(operands[2]).typed) {
    ir::Value& value = graph_.value(operands[2]);
    if (!elements && indices.rank() >= 1 && indices.shape.back() >= 1 &&
        graph_.node(value.producer).kind == ir::NodeKind::kParameter) {
      // A trainable update per coordinate, over the features: indices'
      // leading dimensions, then the input's features past the k indexed.
      std::vector<int64_t> shape(indices.shape.begin(),
                                 indices.shape.end() - 1);
      shape.insert(shape.end(),
                   input.shape.begin() + lead + indices.shape.back(),
                   input.shape.end());
      value.type.shape = shape;
      value.type.names.clear();
      ir::FillDefaultNames(value.type);
    }
    const ir::TensorType& updates = value.type;
    absl::StatusOr<ir::ValueId> u =
        LeadingGlobal(updates) == g ? GlobalLast(operands[2], lead)
        : HasSymbolic(updates)      ? absl::StatusOr<ir::ValueId>(operands[2])
                                    : ExpandOverGlobal(operands[2], dims);
    if (!u.ok()) return failed(u.status());
    operands[2] = *u;
  }
  global = lead;
  return true;
}

std::optional<ir::ValueId> DagBuilder::GlobalFirst(const model::Layer& layer,
                                                   ir::ValueId result,
                                                   int global) {
  const int r = graph_.value(result).type.rank();
  std::vector<int64_t> perm;
  for (int i = r - global; i < r; ++i) perm.push_back(i);
  for (int i = 0; i < r - global; ++i) perm.push_back(i);
  ir::Attrs attrs;
  attrs.Set("permutation", perm);
  absl::StatusOr<ir::ValueId> t =
      rewriter_.Add(ir::OpKind::kTranspose, {result}, attrs);
  if (!t.ok()) {
    ReportRuleError(layer, t.status());
    return std::nullopt;
  }
  return *t;
}

}  // namespace webnnm::dag
