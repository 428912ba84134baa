// Networks' operations as ONNX nodes (onnx_emitters.h): products,
// softmax, reductions, convolution and pooling (NCHW, OIHW filters, as
// ONNX has them: other layouts are transposed around), normalizations.
#include <algorithm>
#include <array>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/interop/onnx_emitters.h"

namespace webnnm::interop {

std::vector<int64_t> AxesOf(const ir::Node& node, int rank,
                            std::vector<int64_t> fallback) {
  if (node.attrs.Has("axes")) return node.attrs.GetInts("axes", {});
  if (!fallback.empty()) return fallback;
  std::vector<int64_t> all(rank);
  for (int i = 0; i < rank; ++i) all[i] = i;
  return all;
}

std::string AlongAxes(OnnxWriter& w, const std::string& x,
                      const ir::TensorType& type,
                      const std::vector<int64_t>& axes, int target_rank) {
  std::vector<int64_t> shape(target_rank, 1);
  for (size_t k = 0; k < axes.size() && k < type.shape.size(); ++k) {
    shape[axes[k]] = type.shape[k];
  }
  return w.Op("Reshape", {x, w.Int64s(shape)});
}

absl::Status EmitMatmul(OnnxWriter& w, const ir::Node& node) {
  w.Add("MatMul", {w.In(node, 0), w.In(node, 1)}, {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitGemm(OnnxWriter& w, const ir::Node& node) {
  std::vector<std::string> in = {w.In(node, 0), w.In(node, 1)};
  if (w.Has(node, 2)) in.push_back(w.In(node, 2));
  onnx::NodeProto& n = w.Add("Gemm", in, {w.Out(node)});
  SetFloat(n, "alpha", node.attrs.GetFloat("alpha", 1.0));
  SetFloat(n, "beta", node.attrs.GetFloat("beta", 1.0));
  SetInt(n, "transA", node.attrs.GetBool("aTranspose", false) ? 1 : 0);
  SetInt(n, "transB", node.attrs.GetBool("bTranspose", false) ? 1 : 0);
  return absl::OkStatus();
}

absl::Status EmitSoftmax(OnnxWriter& w, const ir::Node& node, const char* op) {
  const int rank = w.InType(node, 0).rank();
  SetInt(w.Add(op, {w.In(node, 0)}, {w.Out(node)}), "axis",
         node.attrs.GetInt("axis", rank - 1));
  return absl::OkStatus();
}

absl::Status EmitReduce(OnnxWriter& w, const ir::Node& node, const char* op) {
  const int rank = w.InType(node, 0).rank();
  const std::vector<int64_t> axes = AxesOf(node, rank);
  const bool keep = node.attrs.GetBool("keepDimensions", false);
  if (axes.empty()) {
    // WebNN reduces over no axes element by element (ONNX's empty axes
    // would reduce over all): each element is its own window.
    const std::string x = w.In(node, 0), op_name = op;
    const std::string y = op_name == "ReduceL1" || op_name == "ReduceL2"
                              ? w.Op("Abs", {x})
                          : op_name == "ReduceLogSum"    ? w.Op("Log", {x})
                          : op_name == "ReduceSumSquare" ? w.Op("Mul", {x, x})
                                                         : x;
    w.Add("Identity", {y}, {w.Out(node)});
    return absl::OkStatus();
  }
  if (std::string(op) == "ReduceSum") {  // axes an input from opset 13
    SetInt(w.Add(op, {w.In(node, 0), w.Int64s(axes, "axes")}, {w.Out(node)}),
           "keepdims", keep ? 1 : 0);
    return absl::OkStatus();
  }
  onnx::NodeProto& n = w.Add(op, {w.In(node, 0)}, {w.Out(node)});
  SetInts(n, "axes", axes);
  SetInt(n, "keepdims", keep ? 1 : 0);
  return absl::OkStatus();
}

absl::Status EmitReduceVariance(OnnxWriter& w, const ir::Node& node) {
  const int rank = w.InType(node, 0).rank();
  const std::vector<int64_t> axes = AxesOf(node, rank);
  onnx::NodeProto& mean = w.Add("ReduceMean", {w.In(node, 0)});
  SetInts(mean, "axes", axes);
  SetInt(mean, "keepdims", 1);
  const std::string d = w.Op("Sub", {w.In(node, 0), mean.output(0)});
  onnx::NodeProto& var =
      w.Add("ReduceMean", {w.Op("Mul", {d, d})}, {w.Out(node)});
  SetInts(var, "axes", axes);
  SetInt(var, "keepdims", node.attrs.GetBool("keepDimensions", false) ? 1 : 0);
  return absl::OkStatus();
}

namespace {

bool Nhwc(const ir::Node& node, const char* attr) {
  return node.attrs.GetString(attr, "nchw") == "nhwc";
}

// ONNX's pads (top, left, bottom, right) from WebNN's padding (top,
// bottom, left, right).
std::vector<int64_t> Pads(const ir::Node& node) {
  std::vector<int64_t> p = node.attrs.GetInts("padding", {0, 0, 0, 0});
  if (p.size() != 4) p = {0, 0, 0, 0};
  return {p[0], p[2], p[1], p[3]};
}

}  // namespace

absl::Status EmitConv2d(OnnxWriter& w, const ir::Node& node) {
  const bool nhwc = Nhwc(node, "inputLayout");
  std::string x = w.In(node, 0);
  if (nhwc) x = Transposed(w, x, {0, 3, 1, 2});
  std::string filter = w.In(node, 1);
  const std::string layout = node.attrs.GetString("filterLayout", "oihw");
  if (layout == "hwio") filter = Transposed(w, filter, {3, 2, 0, 1});
  if (layout == "ohwi") filter = Transposed(w, filter, {0, 3, 1, 2});
  if (layout == "ihwo") filter = Transposed(w, filter, {3, 0, 1, 2});
  std::vector<std::string> in = {x, filter};
  if (w.Has(node, 2)) in.push_back(w.In(node, 2));
  onnx::NodeProto& n =
      nhwc ? w.Add("Conv", in) : w.Add("Conv", in, {w.Out(node)});
  SetInts(n, "pads", Pads(node));
  SetInts(n, "strides", node.attrs.GetInts("strides", {1, 1}));
  SetInts(n, "dilations", node.attrs.GetInts("dilations", {1, 1}));
  SetInt(n, "group", node.attrs.GetInt("groups", 1));
  if (nhwc) {
    SetInts(w.Add("Transpose", {n.output(0)}, {w.Out(node)}), "perm",
            {0, 2, 3, 1});
  }
  return absl::OkStatus();
}

absl::Status EmitConvTranspose2d(OnnxWriter& w, const ir::Node& node) {
  const bool nhwc = Nhwc(node, "inputLayout");
  const ir::TensorType& in_type = w.InType(node, 0);
  const ir::TensorType& filter_type = w.InType(node, 1);
  const ir::TensorType& out_type = w.OutType(node);
  std::string x = w.In(node, 0);
  if (nhwc) x = Transposed(w, x, {0, 3, 1, 2});
  // ONNX's weight is [I, O / groups, KH, KW]: WebNN's iohw.
  std::string filter = w.In(node, 1);
  const std::string layout = node.attrs.GetString("filterLayout", "iohw");
  std::array<int64_t, 2> kernel = {filter_type.shape[2], filter_type.shape[3]};
  if (layout == "hwoi") {
    filter = Transposed(w, filter, {3, 2, 0, 1});
    kernel = {filter_type.shape[0], filter_type.shape[1]};
  } else if (layout == "ohwi") {
    filter = Transposed(w, filter, {3, 0, 1, 2});
    kernel = {filter_type.shape[1], filter_type.shape[2]};
  }
  const std::vector<int64_t> strides = node.attrs.GetInts("strides", {1, 1});
  const std::vector<int64_t> dilations =
      node.attrs.GetInts("dilations", {1, 1});
  const std::vector<int64_t> pads = Pads(node);
  // The output's size decides the extra rows and columns (outputPadding,
  // or outputSizes).
  std::vector<int64_t> extra(2);
  for (int i = 0; i < 2; ++i) {
    const int axis = nhwc ? 1 + i : 2 + i;
    const int64_t base = (in_type.shape[axis] - 1) * strides[i] +
                         (kernel[i] - 1) * dilations[i] + 1 - pads[i] -
                         pads[i + 2];
    extra[i] = out_type.shape[axis] - base;
  }
  std::vector<std::string> in = {x, filter};
  if (w.Has(node, 2)) in.push_back(w.In(node, 2));
  onnx::NodeProto& n = nhwc ? w.Add("ConvTranspose", in)
                            : w.Add("ConvTranspose", in, {w.Out(node)});
  SetInts(n, "pads", pads);
  SetInts(n, "strides", strides);
  SetInts(n, "dilations", dilations);
  SetInts(n, "output_padding", extra);
  SetInts(n, "kernel_shape", {kernel[0], kernel[1]});
  SetInt(n, "group", node.attrs.GetInt("groups", 1));
  if (nhwc) {
    SetInts(w.Add("Transpose", {n.output(0)}, {w.Out(node)}), "perm",
            {0, 2, 3, 1});
  }
  return absl::OkStatus();
}

absl::Status EmitResample2d(OnnxWriter& w, const ir::Node& node) {
  // WebNN's coordinates are ONNX's half_pixel ones with the scale out / in
  // (ONNX derives it so from `sizes`); its nearest index rounds ties down
  // (round_prefer_floor).
  const ir::TensorType& in = w.InType(node, 0);
  const std::vector<int64_t>& out = w.OutType(node).shape;
  bool symbolic = false;
  for (int64_t d : out) symbolic |= ir::IsSymbolic(d);
  std::string scales, sizes;
  if (symbolic) {  // a batch's size unknown: the scales of every axis
    std::vector<float> ratio(out.size(), 1.0f);
    for (size_t k = 0; k < out.size(); ++k) {
      if (!ir::IsSymbolic(out[k])) {
        ratio[k] = static_cast<float>(static_cast<double>(out[k]) /
                                      static_cast<double>(in.shape[k]));
      }
    }
    ASSIGN_OR_RETURN(scales,
                     w.Floats(ratio, {static_cast<int64_t>(ratio.size())},
                              ir::DType::kFloat32, w.Fresh("scales")));
  } else {
    sizes = w.Int64s(out, "sizes");
  }
  onnx::NodeProto& n =
      w.Add("Resize", {w.In(node, 0), "", scales, sizes}, {w.Out(node)});
  const bool linear =
      node.attrs.GetString("mode", "nearest-neighbor") == "linear";
  SetString(n, "mode", linear ? "linear" : "nearest");
  SetString(n, "coordinate_transformation_mode", "half_pixel");
  if (!linear) SetString(n, "nearest_mode", "round_prefer_floor");
  return absl::OkStatus();
}

absl::Status EmitPool(OnnxWriter& w, const ir::Node& node, const char* op) {
  const bool nhwc = Nhwc(node, "layout");
  const ir::TensorType& in_type = w.InType(node, 0);
  const ir::TensorType& out_type = w.OutType(node);
  const int h = nhwc ? 1 : 2, wd = nhwc ? 2 : 3;
  const std::vector<int64_t> window = node.attrs.GetInts(
      "windowDimensions", {in_type.shape[h], in_type.shape[wd]});
  const std::vector<int64_t> strides = node.attrs.GetInts("strides", {1, 1});
  const std::vector<int64_t> dilations =
      node.attrs.GetInts("dilations", {1, 1});
  const std::vector<int64_t> pads = Pads(node);
  if (std::string(op) != "MaxPool" &&
      (dilations[0] != 1 || dilations[1] != 1)) {
    return absl::InvalidArgumentError(StrCat(
        node.op->name, " with dilations has no ONNX form before opset 19"));
  }
  // ceil_mode from the output's size (outputSizes or roundingType).
  bool ceil = false;
  for (int i = 0; i < 2; ++i) {
    const int axis = i == 0 ? h : wd;
    const int64_t eff = (window[i] - 1) * dilations[i] + 1;
    const int64_t floor_size =
        (in_type.shape[axis] + pads[i] + pads[i + 2] - eff) / strides[i] + 1;
    ceil |= out_type.shape[axis] != floor_size;
  }
  std::string x = w.In(node, 0);
  if (nhwc) x = Transposed(w, x, {0, 3, 1, 2});
  onnx::NodeProto& n = nhwc ? w.Add(op, {x}) : w.Add(op, {x}, {w.Out(node)});
  SetInts(n, "kernel_shape", window);
  SetInts(n, "pads", pads);
  SetInts(n, "strides", strides);
  if (std::string(op) == "MaxPool") SetInts(n, "dilations", dilations);
  if (std::string(op) == "LpPool") {
    SetInt(n, "p", 2);
  } else {
    SetInt(n, "ceil_mode", ceil ? 1 : 0);
  }
  if (std::string(op) == "AveragePool") SetInt(n, "count_include_pad", 0);
  if (ceil && std::string(op) == "LpPool") {
    return absl::InvalidArgumentError(
        "l2Pool2d rounding its output up has no ONNX form");
  }
  if (nhwc) {
    SetInts(w.Add("Transpose", {n.output(0)}, {w.Out(node)}), "perm",
            {0, 2, 3, 1});
  }
  return absl::OkStatus();
}

absl::Status EmitLayerNormalization(OnnxWriter& w, const ir::Node& node) {
  const ir::TensorType& x = w.InType(node, 0);
  const int rank = x.rank();
  std::vector<int64_t> fallback;
  for (int i = 1; i < rank; ++i) fallback.push_back(i);
  const std::vector<int64_t> axes = AxesOf(node, rank, fallback);
  const double epsilon = node.attrs.GetFloat("epsilon", 1e-5);
  bool trailing = !axes.empty();
  for (size_t k = 0; k < axes.size(); ++k) {
    trailing &= axes[k] == rank - static_cast<int64_t>(axes.size() - k);
  }
  if (trailing) {
    // ONNX's LayerNormalization: the last dimensions from `axis`.
    std::vector<int64_t> dims;
    for (int64_t a : axes) dims.push_back(x.shape[a]);
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::string scale = w.In(node, 1);
    if (scale.empty()) {
      ASSIGN_OR_RETURN(scale, w.Floats(std::vector<float>(count, 1.0f), dims,
                                       x.dtype, w.Fresh("ones")));
    }
    std::vector<std::string> in = {w.In(node, 0), scale};
    if (w.Has(node, 2)) in.push_back(w.In(node, 2));
    onnx::NodeProto& n = w.Add("LayerNormalization", in, {w.Out(node)});
    SetInt(n, "axis", axes[0]);
    SetFloat(n, "epsilon", epsilon);
    return absl::OkStatus();
  }
  if (!std::is_sorted(axes.begin(), axes.end())) {
    return absl::InvalidArgumentError(
        "layerNormalization over axes out of order has no ONNX form here");
  }
  // (x - mean) / sqrt(variance + epsilon) * scale + bias, over `axes`
  // (none: each element is its own mean, its variance 0).
  std::string mean = w.In(node, 0);
  if (!axes.empty()) {
    onnx::NodeProto& reduced = w.Add("ReduceMean", {w.In(node, 0)});
    SetInts(reduced, "axes", axes);
    mean = reduced.output(0);
  }
  const std::string d = w.Op("Sub", {w.In(node, 0), mean});
  std::string var = w.Op("Mul", {d, d});
  if (!axes.empty()) {
    onnx::NodeProto& reduced = w.Add("ReduceMean", {var});
    SetInts(reduced, "axes", axes);
    var = reduced.output(0);
  }
  std::string y = w.Op(
      "Div",
      {d,
       w.Op("Sqrt", {w.Op("Add", {var, w.Scalar(epsilon, x.dtype, "eps")})})});
  if (w.Has(node, 1)) {
    y = w.Op("Mul",
             {y, AlongAxes(w, w.In(node, 1), w.InType(node, 1), axes, rank)});
  }
  if (w.Has(node, 2)) {
    y = w.Op("Add",
             {y, AlongAxes(w, w.In(node, 2), w.InType(node, 2), axes, rank)});
  }
  w.Add("Identity", {y}, {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitBatchNormalization(OnnxWriter& w, const ir::Node& node) {
  // (x - mean) / sqrt(variance + epsilon) * scale + bias along `axis`
  // (ONNX's BatchNormalization wants the channels at 1 and every operand).
  const ir::TensorType& x = w.InType(node, 0);
  const int rank = x.rank();
  const std::vector<int64_t> axis = {node.attrs.GetInt("axis", 1)};
  const double epsilon = node.attrs.GetFloat("epsilon", 1e-5);
  auto along = [&](size_t slot) {
    return AlongAxes(w, w.In(node, slot), w.InType(node, slot), axis, rank);
  };
  const std::string d = w.Op("Sub", {w.In(node, 0), along(1)});
  const std::string sd = w.Op(
      "Sqrt", {w.Op("Add", {along(2), w.Scalar(epsilon, x.dtype, "eps")})});
  std::string y = w.Op("Div", {d, sd});
  if (w.Has(node, 3)) y = w.Op("Mul", {y, along(3)});
  if (w.Has(node, 4)) y = w.Op("Add", {y, along(4)});
  w.Add("Identity", {y}, {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitInstanceNormalization(OnnxWriter& w, const ir::Node& node) {
  const bool nhwc = Nhwc(node, "layout");
  const ir::TensorType& x = w.InType(node, 0);
  const int64_t channels = x.shape[nhwc ? 3 : 1];
  std::string in = w.In(node, 0);
  if (nhwc) in = Transposed(w, in, {0, 3, 1, 2});
  std::string scale = w.In(node, 1), bias = w.In(node, 2);
  if (scale.empty()) {
    ASSIGN_OR_RETURN(scale, w.Floats(std::vector<float>(channels, 1.0f),
                                     {channels}, x.dtype, w.Fresh("ones")));
  }
  if (bias.empty()) {
    ASSIGN_OR_RETURN(bias, w.Floats(std::vector<float>(channels, 0.0f),
                                    {channels}, x.dtype, w.Fresh("zeros")));
  }
  onnx::NodeProto& n =
      nhwc ? w.Add("InstanceNormalization", {in, scale, bias})
           : w.Add("InstanceNormalization", {in, scale, bias}, {w.Out(node)});
  SetFloat(n, "epsilon", node.attrs.GetFloat("epsilon", 1e-5));
  if (nhwc) {
    SetInts(w.Add("Transpose", {n.output(0)}, {w.Out(node)}), "perm",
            {0, 2, 3, 1});
  }
  return absl::OkStatus();
}

}  // namespace webnnm::interop
