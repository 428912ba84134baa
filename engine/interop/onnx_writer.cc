#include "engine/interop/onnx_writer.h"

#include <cstring>

#include "engine/base/float16.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::interop {

absl::StatusOr<int> OnnxType(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kFloat32:
      return onnx::TensorProto::FLOAT;
    case ir::DType::kFloat16:
      return onnx::TensorProto::FLOAT16;
    case ir::DType::kInt32:
      return onnx::TensorProto::INT32;
    case ir::DType::kUint32:
      return onnx::TensorProto::UINT32;
    case ir::DType::kInt64:
      return onnx::TensorProto::INT64;
    case ir::DType::kUint64:
      return onnx::TensorProto::UINT64;
    case ir::DType::kInt8:
      return onnx::TensorProto::INT8;
    case ir::DType::kUint8:
      return onnx::TensorProto::UINT8;
    case ir::DType::kInt4:
    case ir::DType::kUint4:
      break;
  }
  return absl::InvalidArgumentError(
      StrCat(ir::DTypeName(dtype),
             " has no ONNX type before opset 21 (this export writes 17)"));
}

std::string OnnxWriter::Name(ir::ValueId v) const {
  auto it = bound_.find(v);
  return it != bound_.end() ? it->second : StrCat("%", v);
}

std::string OnnxWriter::In(const ir::Node& node, size_t slot) const {
  return Has(node, slot) ? Name(node.operands[slot]) : std::string();
}

std::string OnnxWriter::Out(const ir::Node& node, size_t i) const {
  return Name(node.outputs[i]);
}

std::string OnnxWriter::Fresh(std::string_view hint) {
  return StrCat(hint, "#", counters_[std::string(hint)]++);
}

onnx::NodeProto& OnnxWriter::Add(std::string_view op_type,
                                 std::vector<std::string> inputs,
                                 std::vector<std::string> outputs) {
  onnx::NodeProto& node = *proto_.add_node();
  node.set_op_type(std::string(op_type));
  node.set_name(Fresh(op_type));
  for (std::string& in : inputs) node.add_input(std::move(in));
  if (outputs.empty()) outputs.push_back(Fresh("t"));
  for (std::string& out : outputs) node.add_output(std::move(out));
  return node;
}

namespace {

onnx::TensorProto& NewTensor(onnx::GraphProto& proto, const std::string& name,
                             int type, const std::vector<int64_t>& dims) {
  onnx::TensorProto& t = *proto.add_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

}  // namespace

std::string OnnxWriter::Int64s(const std::vector<int64_t>& values,
                               std::string_view hint) {
  std::string name = Fresh(hint);
  onnx::TensorProto& t = NewTensor(proto_, name, onnx::TensorProto::INT64,
                                   {static_cast<int64_t>(values.size())});
  for (int64_t v : values) t.add_int64_data(v);
  return name;
}

std::string OnnxWriter::Int32s(const std::vector<int64_t>& values,
                               std::string_view hint) {
  std::string name = Fresh(hint);
  onnx::TensorProto& t = NewTensor(proto_, name, onnx::TensorProto::INT32,
                                   {static_cast<int64_t>(values.size())});
  for (int64_t v : values) t.add_int32_data(static_cast<int32_t>(v));
  return name;
}

std::string OnnxWriter::Int64Scalar(int64_t value, std::string_view hint) {
  std::string name = Fresh(hint);
  NewTensor(proto_, name, onnx::TensorProto::INT64, {}).add_int64_data(value);
  return name;
}

std::string OnnxWriter::Scalar(double value, ir::DType dtype,
                               std::string_view hint) {
  std::string name = Fresh(hint);
  // Floating types as themselves; any other as its integer value.
  const int type = OnnxType(dtype).value_or(onnx::TensorProto::FLOAT);
  onnx::TensorProto& t = NewTensor(proto_, name, type, {});
  switch (dtype) {
    case ir::DType::kFloat32:
      t.add_float_data(static_cast<float>(value));
      break;
    case ir::DType::kFloat16:
      t.add_int32_data(DoubleToHalf(value));
      break;
    case ir::DType::kInt64:
      t.add_int64_data(static_cast<int64_t>(value));
      break;
    case ir::DType::kUint32:
    case ir::DType::kUint64:
      t.add_uint64_data(static_cast<uint64_t>(value));
      break;
    default:
      t.add_int32_data(static_cast<int32_t>(value));
      break;
  }
  return name;
}

absl::StatusOr<std::string> OnnxWriter::Floats(const std::vector<float>& values,
                                               const std::vector<int64_t>& dims,
                                               ir::DType dtype,
                                               std::string name) {
  if (dtype != ir::DType::kFloat32 && dtype != ir::DType::kFloat16) {
    return absl::InvalidArgumentError(StrCat("parameter ", name, " is ",
                                             ir::DTypeName(dtype),
                                             "; only float parameters export"));
  }
  onnx::TensorProto& t = NewTensor(proto_, name, *OnnxType(dtype), dims);
  std::string& raw = *t.mutable_raw_data();
  if (dtype == ir::DType::kFloat32) {
    raw.resize(values.size() * 4);
    std::memcpy(raw.data(), values.data(), raw.size());
  } else {
    raw.resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t h = DoubleToHalf(values[i]);
      std::memcpy(raw.data() + 2 * i, &h, 2);
    }
  }
  return name;
}

absl::StatusOr<std::string> OnnxWriter::Raw(const std::vector<uint8_t>& bytes,
                                            const std::vector<int64_t>& dims,
                                            ir::DType dtype, std::string name) {
  ASSIGN_OR_RETURN(int type, OnnxType(dtype));
  onnx::TensorProto& t = NewTensor(proto_, name, type, dims);
  t.set_raw_data(std::string(bytes.begin(), bytes.end()));
  return name;
}

std::string OnnxWriter::Cast(const std::string& x, ir::DType dtype) {
  onnx::NodeProto& node = Add("Cast", {x});
  SetInt(node, "to", OnnxType(dtype).value_or(onnx::TensorProto::FLOAT));
  return node.output(0);
}

std::string OnnxWriter::CastToBool(const std::string& x) {
  onnx::NodeProto& node = Add("Cast", {x});
  SetInt(node, "to", onnx::TensorProto::BOOL);
  return node.output(0);
}

void SetInt(onnx::NodeProto& node, const char* name, int64_t value) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(value);
}

void SetFloat(onnx::NodeProto& node, const char* name, double value) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(static_cast<float>(value));
}

void SetInts(onnx::NodeProto& node, const char* name,
             const std::vector<int64_t>& values) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
}

void SetString(onnx::NodeProto& node, const char* name,
               const std::string& value) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(value);
}

}  // namespace webnnm::interop
