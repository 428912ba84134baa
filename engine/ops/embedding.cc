// embedding: a trainable lookup table read at integer ids (token ids,
// category codes): row i of `table` for every id i of the input.
// Operands: input (int32, uint32, int64, uint64, int8, uint8 ids — the
// 8-bit ones cast to int32, uint64 to int64 — any shape; the batch and the
// sequence included), table ([vocabulary, width], trainable, Glorot).
// Options: vocabulary (required: the table's rows; ids are in
// [-vocabulary, vocabulary), negative ones counting from the end, others
// clamped as gather does). The width comes from the layer's declared shape
// (its last dimension). Result: the input's shape followed by the width,
// the table's type ([batch, sequence, width] for a `{sequence}` input of
// ids). Decomposes into gather(table, indices=input, axis=0), whose
// gradient sums the output gradient into the rows that were read.
#include "engine/base/status_macros.h"
#include "engine/ir/rewriter.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {
namespace {

constexpr int kTable = 1;
constexpr ir::DTypeSet kIdTypes = {ir::DType::kInt32, ir::DType::kUint32,
                                   ir::DType::kInt64, ir::DType::kUint64,
                                   ir::DType::kInt8,  ir::DType::kUint8};

absl::StatusOr<int64_t> Vocabulary(const InferContext& c) {
  int64_t v = c.attrs.GetInt("vocabulary", 0);
  if (v < 1) {
    return AttrError("vocabulary",
                     "embedding needs vocabulary=N, the number of ids (the "
                     "table's rows), at least 1");
  }
  return v;
}

absl::StatusOr<Types> InferEmbedding(const InferContext& c) {
  ASSIGN_OR_RETURN(int64_t vocabulary, Vocabulary(c));
  const TensorType& ids = c.operand(0);
  const TensorType& table = c.operand(kTable);
  if (table.rank() != 2) {
    return OperandError(kTable,
                        StrCat("embedding's table must be [vocabulary, "
                               "width], not ",
                               ir::ShapeToString(table.shape)));
  }
  if (table.shape[0] != vocabulary) {
    return OperandError(kTable, StrCat("embedding's table has ",
                                       table.shape[0], " rows but vocabulary=",
                                       vocabulary));
  }
  TensorType out;
  out.dtype = table.dtype;
  out.shape = ids.shape;
  out.shape.push_back(table.shape[1]);
  if (ids.has_names() || ids.rank() == 0) {
    out.names = ids.names;
    bool taken = false;
    for (const std::string& name : ids.names) taken |= name == "embedding";
    out.names.push_back(taken ? StrCat("embedding", ids.rank()) : "embedding");
  }
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveEmbedding(const InferContext& c,
                                          const TensorType* expected,
                                          int slot) {
  if (slot != kTable) {
    return absl::InvalidArgumentError("embedding cannot infer this operand");
  }
  ASSIGN_OR_RETURN(int64_t vocabulary, Vocabulary(c));
  if (expected == nullptr || expected->rank() == 0 ||
      ir::IsSymbolic(expected->shape.back())) {
    return absl::InvalidArgumentError(
        "embedding needs its width: give the layer a shape whose last "
        "dimension is the width (shape=[16])");
  }
  if (c.has(0) && expected->rank() != c.operand(0).rank() + 1) {
    return absl::InvalidArgumentError(StrCat(
        "embedding adds one dimension (the width) to its input of ids ",
        ir::ShapeToString(c.operand(0).shape),
        ": its shape lists the input's features, then the width"));
  }
  TensorType table;
  table.shape = {vocabulary, expected->shape.back()};
  return table;
}

absl::Status DecomposeEmbedding(ir::GraphRewriter& g, int node) {
  ir::ValueId ids = g.Operand(node, 0);
  const ir::DType type = g.Type(ids).dtype;
  if (!ir::kIndexTypes.Contains(type)) {  // 8-bit and uint64 ids
    ir::Attrs cast;
    cast.Set("type", std::string(ir::DTypeName(type == ir::DType::kUint64
                                                  ? ir::DType::kInt64
                                                  : ir::DType::kInt32)));
    ASSIGN_OR_RETURN(ids, g.Add(ir::OpKind::kCast, {ids}, cast));
  }
  ir::Attrs axis;
  axis.Set("axis", int64_t{0});
  absl::StatusOr<ir::ValueId> rows =
      g.Add(ir::OpKind::kGather, {g.Operand(node, kTable), ids}, axis);
  if (!rows.ok()) return rows.status();
  g.Replace(node, {*rows});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& EmbeddingOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kEmbedding,
      .name = "embedding",
      .category = ir::OpCategory::kHighLevel,
      .operands = {{.name = "input",
                    .types = kIdTypes,
                    .in_type_group = false},
                   {.name = "table",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kGlorotWeight}},
      .attrs = {{.name = "vocabulary",
                 .kind = ir::AttrKind::kInt,
                 .required = true}},
      .infer = InferEmbedding,
      .solve = SolveEmbedding,
      .decompose = DecomposeEmbedding};
  return def;
}

}  // namespace webnnm::ops
