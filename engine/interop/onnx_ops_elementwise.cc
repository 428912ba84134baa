// Element-wise operations as ONNX nodes (onnx_emitters.h).
#include <cmath>
#include <limits>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/interop/onnx_emitters.h"

namespace webnnm::interop {
namespace {

std::vector<std::string> Operands(OnnxWriter& w, const ir::Node& node) {
  std::vector<std::string> in;
  for (size_t k = 0; k < node.operands.size(); ++k) in.push_back(w.In(node, k));
  return in;
}

// A bool result as WebNN's uint8 truth value, named as the node's output.
void BoolOut(OnnxWriter& w, const ir::Node& node, const std::string& b) {
  onnx::NodeProto& cast = w.Add("Cast", {b}, {w.Out(node)});
  SetInt(cast, "to", onnx::TensorProto::UINT8);
}

}  // namespace

absl::Status EmitSame(OnnxWriter& w, const ir::Node& node, const char* op) {
  w.Add(op, Operands(w, node), {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitCompare(OnnxWriter& w, const ir::Node& node, const char* op) {
  BoolOut(w, node, w.Op(op, Operands(w, node)));
  return absl::OkStatus();
}

absl::Status EmitLogical(OnnxWriter& w, const ir::Node& node, const char* op) {
  std::vector<std::string> in;
  for (size_t k = 0; k < node.operands.size(); ++k) {
    in.push_back(w.CastToBool(w.In(node, k)));
  }
  BoolOut(w, node, w.Op(op, in));
  return absl::OkStatus();
}

absl::Status EmitNotEqual(OnnxWriter& w, const ir::Node& node) {
  BoolOut(w, node, w.Op("Not", {w.Op("Equal", Operands(w, node))}));
  return absl::OkStatus();
}

absl::Status EmitIsNaN(OnnxWriter& w, const ir::Node& node) {
  BoolOut(w, node, w.Op("IsNaN", {w.In(node, 0)}));
  return absl::OkStatus();
}

absl::Status EmitIsInfinite(OnnxWriter& w, const ir::Node& node) {
  // Opset 17's IsInf takes float32 and float64: float16 is cast up (exact).
  std::string x = w.In(node, 0);
  if (w.InType(node, 0).dtype == ir::DType::kFloat16) {
    x = w.Cast(x, ir::DType::kFloat32);
  }
  BoolOut(w, node, w.Op("IsInf", {x}));
  return absl::OkStatus();
}

absl::Status EmitClamp(OnnxWriter& w, const ir::Node& node) {
  // Both bounds always: ONNX's Clip without one clamps to the type's
  // finite range, which would turn an infinite input finite.
  const ir::DType dtype = w.InType(node, 0).dtype;
  const double lo =
      node.attrs.GetFloat("minValue", -std::numeric_limits<double>::infinity());
  const double hi =
      node.attrs.GetFloat("maxValue", std::numeric_limits<double>::infinity());
  if (!ir::IsFloat(dtype) && (std::isinf(lo) || std::isinf(hi))) {
    // An integer type's own range: ONNX's default is the same.
    w.Add("Clip",
          {w.In(node, 0), std::isinf(lo) ? "" : w.Scalar(lo, dtype, "min"),
           std::isinf(hi) ? "" : w.Scalar(hi, dtype, "max")},
          {w.Out(node)});
    return absl::OkStatus();
  }
  w.Add("Clip",
        {w.In(node, 0), w.Scalar(lo, dtype, "min"), w.Scalar(hi, dtype, "max")},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitLeakyRelu(OnnxWriter& w, const ir::Node& node) {
  SetFloat(w.Add("LeakyRelu", {w.In(node, 0)}, {w.Out(node)}), "alpha",
           node.attrs.GetFloat("alpha", 0.01));
  return absl::OkStatus();
}

absl::Status EmitElu(OnnxWriter& w, const ir::Node& node) {
  SetFloat(w.Add("Elu", {w.In(node, 0)}, {w.Out(node)}), "alpha",
           node.attrs.GetFloat("alpha", 1.0));
  return absl::OkStatus();
}

absl::Status EmitHardSigmoid(OnnxWriter& w, const ir::Node& node) {
  onnx::NodeProto& n = w.Add("HardSigmoid", {w.In(node, 0)}, {w.Out(node)});
  SetFloat(n, "alpha", node.attrs.GetFloat("alpha", 0.2));
  SetFloat(n, "beta", node.attrs.GetFloat("beta", 0.5));
  return absl::OkStatus();
}

absl::Status EmitLinear(OnnxWriter& w, const ir::Node& node) {
  const ir::DType dtype = w.InType(node, 0).dtype;
  const std::string scaled = w.Op(
      "Mul", {w.In(node, 0),
              w.Scalar(node.attrs.GetFloat("alpha", 1.0), dtype, "alpha")});
  w.Add("Add",
        {scaled, w.Scalar(node.attrs.GetFloat("beta", 0.0), dtype, "beta")},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitGelu(OnnxWriter& w, const ir::Node& node) {
  // Opset 17 has no Gelu: 0.5 x (1 + erf(x / sqrt(2))).
  const ir::DType dtype = w.InType(node, 0).dtype;
  const std::string x = w.In(node, 0);
  const std::string erf =
      w.Op("Erf", {w.Op("Mul", {x, w.Scalar(M_SQRT1_2, dtype, "rsqrt2")})});
  const std::string one_plus = w.Op("Add", {erf, w.Scalar(1.0, dtype, "one")});
  const std::string half_x = w.Op("Mul", {x, w.Scalar(0.5, dtype, "half")});
  w.Add("Mul", {half_x, one_plus}, {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitWhere(OnnxWriter& w, const ir::Node& node) {
  w.Add("Where", {w.CastToBool(w.In(node, 0)), w.In(node, 1), w.In(node, 2)},
        {w.Out(node)});
  return absl::OkStatus();
}

absl::Status EmitCast(OnnxWriter& w, const ir::Node& node) {
  ASSIGN_OR_RETURN(int to, OnnxType(w.OutType(node).dtype));
  SetInt(w.Add("Cast", {w.In(node, 0)}, {w.Out(node)}), "to", to);
  return absl::OkStatus();
}

absl::Status EmitPrelu(OnnxWriter& w, const ir::Node& node) {
  w.Add("PRelu", {w.In(node, 0), w.In(node, 1)}, {w.Out(node)});
  return absl::OkStatus();
}

}  // namespace webnnm::interop
