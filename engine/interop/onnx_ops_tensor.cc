// Tensor movement as ONNX nodes (onnx_emitters.h). Shape-like operands
// (shapes, starts, pads, repeats, axes) are initializers.
#include <limits>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/interop/onnx_emitters.h"

namespace webnnm::interop {
namespace {

constexpr int64_t kToTheEnd = std::numeric_limits<int32_t>::max();

// A shape with the batch and sequence sizes symbolic, as ONNX's Reshape
// reads it: a symbolic size where the input has the same one at the same
// index is 0 (copied), one more is -1 (inferred); another is refused.
absl::StatusOr<std::vector<int64_t>> ReshapeTarget(
    const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  std::vector<int64_t> shape = to;
  bool inferred = false;
  for (size_t i = 0; i < to.size(); ++i) {
    if (!ir::IsSymbolic(to[i])) continue;
    if (i < from.size() && from[i] == to[i]) {
      shape[i] = 0;
    } else if (!inferred) {
      shape[i] = -1;
      inferred = true;
    } else {
      return absl::InvalidArgumentError(
          StrCat("a reshape to ", ir::ShapeToString(to), " from ",
                 ir::ShapeToString(from),
                 " moves two symbolic dimensions; ONNX's Reshape infers one"));
    }
  }
  return shape;
}

}  // namespace

absl::Status EmitReshape(OnnxWriter& w, const ir::Node& node) {
  // The result's shape (newShape, as rules resolved it).
  ASSIGN_OR_RETURN(
      std::vector<int64_t> shape,
      ReshapeTarget(w.InType(node, 0).shape, w.OutType(node).shape));
  w.Add("Reshape", {w.In(node, 0), w.Int64s(shape)}, {w.Out(node)});
  return absl::OkStatus();
}

std::string Transposed(OnnxWriter& w, const std::string& x,
                       const std::vector<int64_t>& perm) {
  onnx::NodeProto& n = w.Add("Transpose", {x});
  SetInts(n, "perm", perm);
  return n.output(0);
}

absl::Status EmitTranspose(OnnxWriter& w, const ir::Node& node) {
  onnx::NodeProto& n = w.Add("Transpose", {w.In(node, 0)}, {w.Out(node)});
  if (node.attrs.Has("permutation")) {
    SetInts(n, "perm", node.attrs.GetInts("permutation", {}));
  }
  return absl::OkStatus();
}

absl::Status EmitConcat(OnnxWriter& w, const ir::Node& node) {
  std::vector<std::string> in;
  for (size_t k = 0; k < node.operands.size(); ++k) in.push_back(w.In(node, k));
  SetInt(w.Add("Concat", in, {w.Out(node)}), "axis",
         node.attrs.GetInt("axis", 0));
  return absl::OkStatus();
}

absl::Status EmitSlice(OnnxWriter& w, const ir::Node& node) {
  const std::vector<int64_t>& shape = w.InType(node, 0).shape;
  const int rank = static_cast<int>(shape.size());
  if (rank == 0) {  // a scalar's slice is itself (ONNX slices no scalar)
    w.Add("Identity", {w.In(node, 0)}, {w.Out(node)});
    return absl::OkStatus();
  }
  std::vector<int64_t> starts = node.attrs.GetInts("starts", {});
  std::vector<int64_t> sizes = node.attrs.GetInts("sizes", {});
  std::vector<int64_t> strides =
      node.attrs.GetInts("strides", std::vector<int64_t>(rank, 1));
  std::vector<int64_t> ends(rank), axes(rank);
  for (int i = 0; i < rank; ++i) {
    axes[i] = i;
    // A symbolic size is the whole dimension (from 0).
    ends[i] = ir::IsSymbolic(sizes[i]) ? kToTheEnd : starts[i] + sizes[i];
  }
  w.Add("Slice",
        {w.In(node, 0), w.Int32s(starts, "starts"), w.Int32s(ends, "ends"),
         w.Int32s(axes, "axes"), w.Int32s(strides, "steps")},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitSplit(OnnxWriter& w, const ir::Node& node) {
  std::vector<std::string> outs;
  std::vector<int64_t> sizes;
  const int axis = static_cast<int>(node.attrs.GetInt("axis", 0));
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    outs.push_back(w.Out(node, i));
    sizes.push_back(w.OutType(node, i).shape[axis]);
  }
  onnx::NodeProto& n =
      w.Add("Split", {w.In(node, 0), w.Int64s(sizes, "split")}, outs);
  SetInt(n, "axis", axis);
  return absl::OkStatus();
}

absl::Status EmitPad(OnnxWriter& w, const ir::Node& node) {
  std::vector<int64_t> pads = node.attrs.GetInts("beginningPadding", {});
  for (int64_t e : node.attrs.GetInts("endingPadding", {})) pads.push_back(e);
  const std::string mode = node.attrs.GetString("mode", "constant");
  const char* onnx_mode = mode == "constant"     ? "constant"
                          : mode == "edge"       ? "edge"
                          : mode == "reflection" ? "reflect"
                                                 : nullptr;
  if (onnx_mode == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("pad mode '", mode, "' has no ONNX form before opset 19"));
  }
  const ir::DType dtype = w.InType(node, 0).dtype;
  onnx::NodeProto& n =
      w.Add("Pad",
            {w.In(node, 0), w.Int64s(pads, "pads"),
             w.Scalar(node.attrs.GetFloat("value", 0.0), dtype, "value")},
            {w.Out(node)});
  SetString(n, "mode", onnx_mode);
  return absl::OkStatus();
}

absl::Status EmitExpand(OnnxWriter& w, const ir::Node& node) {
  // ONNX's Expand broadcasts both ways: a symbolic size the input has at
  // the same place (from the right) is 1 there.
  const std::vector<int64_t>& from = w.InType(node, 0).shape;
  std::vector<int64_t> to = w.OutType(node).shape;
  for (size_t i = 0; i < to.size(); ++i) {
    if (!ir::IsSymbolic(to[i])) continue;
    const int64_t j =
        static_cast<int64_t>(i) - static_cast<int64_t>(to.size() - from.size());
    if (j < 0 || from[j] != to[i]) {
      return absl::InvalidArgumentError(
          StrCat("an expand to ", ir::ShapeToString(to), " from ",
                 ir::ShapeToString(from),
                 " creates a symbolic dimension, which needs its size at "
                 "run time"));
    }
    to[i] = 1;
  }
  w.Add("Expand", {w.In(node, 0), w.Int64s(to)}, {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitTile(OnnxWriter& w, const ir::Node& node) {
  w.Add("Tile",
        {w.In(node, 0),
         w.Int64s(node.attrs.GetInts("repetitions", {}), "repeats")},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitReverse(OnnxWriter& w, const ir::Node& node) {
  const int rank = w.InType(node, 0).rank();
  const std::vector<int64_t> axes = AxesOf(node, rank);
  if (axes.empty()) {
    w.Add("Identity", {w.In(node, 0)}, {w.Out(node)});
    return absl::OkStatus();
  }
  std::vector<int64_t> starts(axes.size(), -1), ends(axes.size(), INT32_MIN),
      steps(axes.size(), -1);
  w.Add("Slice",
        {w.In(node, 0), w.Int32s(starts, "starts"), w.Int32s(ends, "ends"),
         w.Int32s(axes, "axes"), w.Int32s(steps, "steps")},
        {w.Out(node)});
  return absl::OkStatus();
}

namespace {

// Indices as ONNX reads them (int32 or int64; others cast to int32),
// clamped as WebNN's are, into [-d, d - 1] of the dimension each indexes:
// ONNX refuses an index out of range where WebNN's backends clamp it.
// `dims` holds one size (every index into that dimension) or, for ND
// indices, one a component (the last axis of the indices).
std::string Indices(OnnxWriter& w, const ir::Node& node, size_t slot,
                    const std::vector<int64_t>& dims,
                    ir::DType want = ir::DType::kInt32) {
  ir::DType t = w.InType(node, slot).dtype;
  std::string x = w.In(node, slot);
  if (t != want && !(want == ir::DType::kInt32 && t == ir::DType::kInt64)) {
    x = w.Cast(x, want);
    t = want;
  }
  for (int64_t d : dims) {
    if (ir::IsSymbolic(d)) return x;  // a batch's size: not known here
  }
  if (dims.size() == 1) {
    return w.Op("Min", {w.Op("Max", {x, w.Scalar(-dims[0], t, "lowest")}),
                        w.Scalar(dims[0] - 1, t, "highest")});
  }
  std::vector<int64_t> lo, hi;
  for (int64_t d : dims) {
    lo.push_back(-d);
    hi.push_back(d - 1);
  }
  const auto vec = [&](const std::vector<int64_t>& v, const char* hint) {
    return t == ir::DType::kInt64 ? w.Int64s(v, hint) : w.Int32s(v, hint);
  };
  return w.Op("Min", {w.Op("Max", {x, vec(lo, "lowest")}), vec(hi, "highest")});
}

// The sizes of `input`'s first `k` dimensions.
std::vector<int64_t> Leading(const ir::TensorType& input, int64_t k) {
  return std::vector<int64_t>(input.shape.begin(), input.shape.begin() + k);
}

}  // namespace

absl::Status EmitGather(OnnxWriter& w, const ir::Node& node) {
  const int64_t axis = node.attrs.GetInt("axis", 0);
  SetInt(w.Add("Gather",
               {w.In(node, 0),
                Indices(w, node, 1, {w.InType(node, 0).shape[axis]})},
               {w.Out(node)}),
         "axis", axis);
  return absl::OkStatus();
}

absl::Status EmitGatherElements(OnnxWriter& w, const ir::Node& node) {
  const int64_t axis = node.attrs.GetInt("axis", 0);
  SetInt(w.Add("GatherElements",
               {w.In(node, 0),
                Indices(w, node, 1, {w.InType(node, 0).shape[axis]})},
               {w.Out(node)}),
         "axis", axis);
  return absl::OkStatus();
}

absl::Status EmitGatherND(OnnxWriter& w, const ir::Node& node) {
  // ONNX's GatherND reads int64 indices only.
  const ir::TensorType& indices = w.InType(node, 1);
  w.Add("GatherND",
        {w.In(node, 0),
         Indices(w, node, 1, Leading(w.InType(node, 0), indices.shape.back()),
                 ir::DType::kInt64)},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitScatterElements(OnnxWriter& w, const ir::Node& node) {
  const int64_t axis = node.attrs.GetInt("axis", 0);
  SetInt(w.Add("ScatterElements",
               {w.In(node, 0),
                Indices(w, node, 1, {w.InType(node, 0).shape[axis]}),
                w.In(node, 2)},
               {w.Out(node)}),
         "axis", axis);
  return absl::OkStatus();
}

absl::Status EmitScatterND(OnnxWriter& w, const ir::Node& node) {
  const ir::TensorType& indices = w.InType(node, 1);
  w.Add("ScatterND",
        {w.In(node, 0),
         Indices(w, node, 1, Leading(w.InType(node, 0), indices.shape.back()),
                 ir::DType::kInt64),
         w.In(node, 2)},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitTriangular(OnnxWriter& w, const ir::Node& node) {
  onnx::NodeProto& n = w.Add(
      "Trilu",
      {w.In(node, 0), w.Int64Scalar(node.attrs.GetInt("diagonal", 0), "k")},
      {w.Out(node)});
  SetInt(n, "upper", node.attrs.GetBool("upper", true) ? 1 : 0);
  return absl::OkStatus();
}

absl::Status EmitCumulativeSum(OnnxWriter& w, const ir::Node& node) {
  onnx::NodeProto& n =
      w.Add("CumSum",
            {w.In(node, 0),
             w.Scalar(static_cast<double>(node.attrs.GetInt("axis", 0)),
                      ir::DType::kInt32, "axis")},
            {w.Out(node)});
  SetInt(n, "exclusive", node.attrs.GetBool("exclusive", false) ? 1 : 0);
  SetInt(n, "reverse", node.attrs.GetBool("reversed", false) ? 1 : 0);
  return absl::OkStatus();
}

absl::Status EmitArgMinMax(OnnxWriter& w, const ir::Node& node,
                           const char* op) {
  // ONNX's result is int64: cast to the operation's type when another.
  const ir::DType out = w.OutType(node).dtype;
  onnx::NodeProto& n = out == ir::DType::kInt64
                           ? w.Add(op, {w.In(node, 0)}, {w.Out(node)})
                           : w.Add(op, {w.In(node, 0)});
  SetInt(n, "axis", node.attrs.GetInt("axis", 0));
  SetInt(n, "keepdims", node.attrs.GetBool("keepDimensions", false) ? 1 : 0);
  if (out != ir::DType::kInt64) {
    ASSIGN_OR_RETURN(int to, OnnxType(out));
    SetInt(w.Add("Cast", {n.output(0)}, {w.Out(node)}), "to", to);
  }
  return absl::OkStatus();
}

}  // namespace webnnm::interop
