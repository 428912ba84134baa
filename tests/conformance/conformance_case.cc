#include "tests/conformance/conformance_case.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "backends/cpu/element.h"
#include "engine/base/checked_math.h"
#include "engine/base/float16.h"
#include "engine/base/strings.h"
#include "engine/ir/graph_builder.h"

namespace webnnm::conformance {
namespace {

using nlohmann::json;

absl::StatusOr<double> Number(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return absl::InvalidArgumentError(StrCat("not a number: ", v.dump()));
}

template <typename T>
void Append(std::vector<std::byte>& out, T value) {
  std::byte bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

absl::Status AppendElement(std::vector<std::byte>& out, ir::DType type,
                           const json& v) {
  switch (type) {
    case ir::DType::kFloat32: {
      absl::StatusOr<double> d = Number(v);
      if (!d.ok()) return d.status();
      Append(out, static_cast<float>(*d));
      return absl::OkStatus();
    }
    case ir::DType::kFloat16: {
      absl::StatusOr<double> d = Number(v);
      if (!d.ok()) return d.status();
      Append(out, DoubleToHalf(*d));
      return absl::OkStatus();
    }
    case ir::DType::kUint64:
      if (!v.is_number_integer()) break;
      Append(out, v.get<uint64_t>());
      return absl::OkStatus();
    default:
      if (!v.is_number_integer()) break;
      int64_t i = v.get<int64_t>();
      switch (type) {
        case ir::DType::kInt32:
          Append(out, static_cast<int32_t>(i));
          break;
        case ir::DType::kUint32:
          Append(out, static_cast<uint32_t>(i));
          break;
        case ir::DType::kInt64:
          Append(out, i);
          break;
        case ir::DType::kInt8:
        case ir::DType::kInt4:
          Append(out, static_cast<int8_t>(i));
          break;
        default:
          Append(out, static_cast<uint8_t>(i));
          break;
      }
      return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      StrCat("not an integer for ", ir::DTypeName(type), ": ", v.dump()));
}

absl::StatusOr<ir::TensorType> Descriptor(const json& d,
                                          const ir::Limits& limits) {
  if (!d.contains("dataType") || !d.contains("shape")) {
    return absl::InvalidArgumentError("a descriptor needs dataType and shape");
  }
  std::optional<ir::DType> type =
      ir::ParseDType(d["dataType"].get<std::string>());
  if (!type) {
    return absl::InvalidArgumentError(
        StrCat("unknown data type ", d["dataType"].dump()));
  }
  ir::TensorType t;
  t.dtype = *type;
  const json& shape = d["shape"];
  if (!shape.is_array()) {
    return absl::InvalidArgumentError("a descriptor's shape must be a list");
  }
  for (const json& dim : shape) {
    if (!dim.is_number_integer()) {
      return absl::InvalidArgumentError(
          StrCat("dimension ", dim.dump(), " is not an integer"));
    }
    t.shape.push_back(dim.get<int64_t>());
  }
  // Checked before any data is encoded: the vectors are untrusted input.
  std::optional<int64_t> count = CheckedProduct(t.shape);
  std::optional<int64_t> bytes =
      count ? CheckedMul(*count, ir::RuntimeElementSize(t.dtype))
            : std::nullopt;
  bool dims_ok = static_cast<int64_t>(t.shape.size()) <= limits.max_rank;
  for (int64_t dim : t.shape) {
    dims_ok = dims_ok && dim >= 0 && dim <= limits.max_dimension;
  }
  if (!dims_ok || !bytes || *bytes > limits.max_tensor_bytes) {
    return absl::InvalidArgumentError(
        StrCat("descriptor ", d.dump(), " is beyond the size limits"));
  }
  return t;
}

// An attribute from its JSON value, typed by the op's schema.
absl::StatusOr<ir::AttrValue> AttrValueOf(const ir::AttrSpec& spec,
                                          const json& v) {
  using K = ir::AttrKind;
  switch (spec.kind) {
    case K::kInt:
    case K::kUint:
    case K::kAxis:
      if (v.is_number_integer()) return v.get<int64_t>();
      break;
    case K::kFloat: {
      absl::StatusOr<double> d = Number(v);
      if (d.ok()) return *d;
      break;
    }
    case K::kBool:
      if (v.is_boolean()) return v.get<bool>();
      break;
    case K::kEnum:
    case K::kDType:
      if (v.is_string()) return v.get<std::string>();
      break;
    case K::kFloats:
      if (v.is_array()) {
        std::vector<double> out;
        for (const json& item : v) {
          absl::StatusOr<double> d = Number(item);
          if (!d.ok()) return d.status();
          out.push_back(*d);
        }
        return out;
      }
      break;
    case K::kEnums:
      if (v.is_array()) return v.get<std::vector<std::string>>();
      break;
    case K::kSplits:
      if (v.is_number_integer()) return v.get<int64_t>();
      [[fallthrough]];
    default:  // the integer lists
      if (v.is_array()) {
        std::vector<int64_t> out;
        for (const json& item : v) {
          if (!item.is_number_integer()) {
            return absl::InvalidArgumentError(
                StrCat(spec.name, " must be integers: ", v.dump()));
          }
          out.push_back(item.get<int64_t>());
        }
        return out;
      }
      break;
  }
  return absl::InvalidArgumentError(
      StrCat("bad value for ", spec.name, ": ", v.dump()));
}

}  // namespace

absl::StatusOr<std::vector<std::byte>> EncodeData(const json& data,
                                                  ir::DType type, int64_t count,
                                                  bool fill) {
  std::vector<std::byte> out;
  if (!data.is_array()) {
    return absl::InvalidArgumentError("data must be an array");
  }
  if (fill) {
    if (data.size() != 1) {
      return absl::InvalidArgumentError("fill data must have one value");
    }
    std::vector<std::byte> one;
    absl::Status status = AppendElement(one, type, data[0]);
    if (!status.ok()) return status;
    out.reserve(one.size() * count);
    for (int64_t i = 0; i < count; ++i) {
      out.insert(out.end(), one.begin(), one.end());
    }
    return out;
  }
  if (static_cast<int64_t>(data.size()) != count) {
    return absl::InvalidArgumentError(
        StrCat("data has ", data.size(), " values for ", count, " elements"));
  }
  for (const json& v : data) {
    absl::Status status = AppendElement(out, type, v);
    if (!status.ok()) return status;
  }
  return out;
}

absl::StatusOr<Case> BuildCase(const json& test, const ir::Limits& limits) {
  Case c;
  c.name = test.value("name", "(unnamed)");
  const json& graph = test.at("graph");
  ir::GraphBuilder builder(limits);
  std::map<std::string, ir::ValueId> values;

  for (const auto& [name, operand] : graph.at("inputs").items()) {
    absl::StatusOr<ir::TensorType> type =
        Descriptor(operand.at("descriptor"), limits);
    if (!type.ok()) return type.status();
    int64_t count = 1;
    for (int64_t d : type->shape) count *= d;
    absl::StatusOr<std::vector<std::byte>> bytes = EncodeData(
        operand.at("data"), type->dtype, count, operand.value("fill", false));
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          StrCat("input ", name, ": ", bytes.status().message()));
    }
    if (operand.value("constant", false)) {
      auto data = std::make_shared<ir::ConstantData>();
      // (assigned, not copied with memcpy: an empty constant has no data)
      data->bytes.assign(
          reinterpret_cast<const uint8_t*>(bytes->data()),
          reinterpret_cast<const uint8_t*>(bytes->data()) + bytes->size());
      absl::StatusOr<ir::ValueId> v = builder.Constant(name, *type, data);
      if (!v.ok()) return v.status();
      values[name] = *v;
    } else {
      values[name] = builder.Input(name, *type);
      c.inputs.push_back({name, *type, *std::move(bytes)});
    }
  }

  auto reference = [&](const json& v) -> absl::StatusOr<ir::ValueId> {
    if (v.is_string()) {
      auto it = values.find(v.get<std::string>());
      if (it != values.end()) return it->second;
    }
    return absl::InvalidArgumentError(StrCat("unknown operand ", v.dump()));
  };

  for (const json& call : graph.at("operators")) {
    std::string op_name = call.at("name").get<std::string>();
    const ir::OpDef* op = ir::FindOp(op_name);
    if (op == nullptr) {
      return absl::UnimplementedError(StrCat("unknown operator ", op_name));
    }
    std::vector<ir::ValueId> operands;
    if (!op->variadic()) operands.assign(op->operands.size(), ir::kNoValue);
    ir::Attrs attrs;
    auto bind = [&](const std::string& key, const json& v) -> absl::Status {
      if (op->variadic() && key == "inputs") {
        for (const json& item : v) {
          absl::StatusOr<ir::ValueId> r = reference(item);
          if (!r.ok()) return r.status();
          operands.push_back(*r);
        }
        return absl::OkStatus();
      }
      int slot = op->FindOperand(key);
      if (slot >= 0 && !op->variadic()) {
        absl::StatusOr<ir::ValueId> r = reference(v);
        if (!r.ok()) return r.status();
        operands[slot] = *r;
        return absl::OkStatus();
      }
      const ir::AttrSpec* spec = op->FindAttr(key);
      if (spec == nullptr) {
        return absl::UnimplementedError(
            StrCat(op_name, " has no argument or option '", key, "'"));
      }
      absl::StatusOr<ir::AttrValue> value = AttrValueOf(*spec, v);
      if (!value.ok()) return value.status();
      attrs.Set(spec->name, *std::move(value));
      return absl::OkStatus();
    };
    for (const json& argument : call.at("arguments")) {
      for (const auto& [key, v] : argument.items()) {
        if (key == "options") {
          for (const auto& [option, ov] : v.items()) {
            absl::Status status = bind(option, ov);
            if (!status.ok()) return status;
          }
        } else {
          absl::Status status = bind(key, v);
          if (!status.ok()) return status;
        }
      }
    }
    absl::StatusOr<std::vector<ir::ValueId>> results =
        builder.Op(op->kind, operands, attrs);
    if (!results.ok()) {
      return absl::InvalidArgumentError(
          StrCat(op_name, ": ", results.status().message()));
    }
    // The type the op computes in, for the backend's capability query.
    ir::DType dtype = ir::DType::kFloat32;
    for (size_t i = 0; i < operands.size(); ++i) {
      const ir::OperandSpec& spec = op->operands[op->variadic() ? 0 : i];
      if (operands[i] != ir::kNoValue && spec.in_type_group) {
        dtype = builder.Type(operands[i]).dtype;
        break;
      }
    }
    c.uses.insert({op->kind, dtype});
    const json& outs = call.at("outputs");
    std::vector<std::string> names =
        outs.is_array() ? outs.get<std::vector<std::string>>()
                        : std::vector<std::string>{outs.get<std::string>()};
    if (names.size() != results->size()) {
      return absl::InvalidArgumentError(StrCat(op_name, " gives ",
                                               results->size(),
                                               " results, the case "
                                               "names ",
                                               names.size()));
    }
    for (size_t i = 0; i < names.size(); ++i) values[names[i]] = (*results)[i];
  }

  for (const auto& [name, expected] : graph.at("expectedOutputs").items()) {
    auto it = values.find(name);
    if (it == values.end()) {
      return absl::InvalidArgumentError(StrCat("no value named ", name));
    }
    absl::StatusOr<ir::TensorType> type =
        Descriptor(expected.at("descriptor"), limits);
    if (!type.ok()) return type.status();
    const ir::TensorType& have = builder.Type(it->second);
    if (have.dtype != type->dtype || have.shape != type->shape) {
      return absl::InvalidArgumentError(StrCat(
          "output ", name, " is ", have.ToString(),
          " but the case "
          "expects ",
          ir::DTypeName(type->dtype), " ", ir::ShapeToString(type->shape)));
    }
    builder.Output(name, it->second);
    c.outputs.push_back(
        {name, *type, expected.at("data"), expected.value("fill", false)});
  }

  const json& tolerance = test.at("tolerance");
  c.tolerance.metric = tolerance.at("metric") == "ATOL"
                           ? Tolerance::Metric::kAtol
                           : Tolerance::Metric::kUlp;
  c.tolerance.value = tolerance.at("value").get<double>();
  c.tolerance.rtol = tolerance.value("rtol", 0.0);
  if (test.contains("gradients")) c.gradients = &test["gradients"];
  c.graph = builder.Finish();
  return c;
}

namespace {

// The value of element `i` of `bytes` as a double (integers exactly up to
// 2^53, which the comparison of integers avoids needing).
double ElementValue(const std::byte* bytes, ir::DType type, int64_t i) {
  switch (type) {
    case ir::DType::kFloat32: {
      float f;
      std::memcpy(&f, bytes + 4 * i, 4);
      return f;
    }
    case ir::DType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, bytes + 2 * i, 2);
      return HalfToFloat(h);
    }
    default:
      return 0;
  }
}

// Signed distance in units in the last place, on the type's bit patterns.
int64_t UlpIndex(const std::byte* bytes, ir::DType type, int64_t i) {
  if (type == ir::DType::kFloat32) {
    uint32_t u;
    std::memcpy(&u, bytes + 4 * i, 4);
    int64_t magnitude = u & 0x7FFFFFFF;
    return (u & 0x80000000) ? -magnitude : magnitude;
  }
  uint16_t h;
  std::memcpy(&h, bytes + 2 * i, 2);
  int64_t magnitude = h & 0x7FFF;
  return (h & 0x8000) ? -magnitude : magnitude;
}

// Integer elements as 128-bit values, so uint64 differences are exact.
__int128 IntegerValue(const std::byte* bytes, ir::DType type, int64_t i) {
  switch (type) {
    case ir::DType::kInt32: {
      int32_t v;
      std::memcpy(&v, bytes + 4 * i, 4);
      return v;
    }
    case ir::DType::kUint32: {
      uint32_t v;
      std::memcpy(&v, bytes + 4 * i, 4);
      return v;
    }
    case ir::DType::kInt64: {
      int64_t v;
      std::memcpy(&v, bytes + 8 * i, 8);
      return v;
    }
    case ir::DType::kUint64: {
      uint64_t v;
      std::memcpy(&v, bytes + 8 * i, 8);
      return v;
    }
    case ir::DType::kInt8:
    case ir::DType::kInt4:
      return static_cast<int8_t>(bytes[i]);
    default:
      return static_cast<uint8_t>(bytes[i]);
  }
}

std::string Text(__int128 v) {
  if (v < 0) return "-" + Text(-v);
  std::string s;
  do {
    s.insert(s.begin(), char('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return s;
}

}  // namespace

std::string Compare(const Expected& expected, const std::byte* actual,
                    const Tolerance& tolerance) {
  int64_t count = 1;
  for (int64_t d : expected.type.shape) count *= d;
  absl::StatusOr<std::vector<std::byte>> want =
      EncodeData(expected.data, expected.type.dtype, count, expected.fill);
  if (!want.ok()) {
    return StrCat("output ", expected.name, ": ", want.status().message());
  }
  ir::DType type = expected.type.dtype;
  bool is_float = ir::IsFloat(type);
  double worst = -1;
  int64_t worst_at = -1;
  std::string worst_text;
  for (int64_t i = 0; i < count; ++i) {
    double error = 0;
    std::string text;
    if (is_float) {
      double e = ElementValue(want->data(), type, i);
      double a = ElementValue(actual, type, i);
      text = StrCat("expected ", e, ", got ", a);
      if (std::isnan(e) || std::isnan(a) || std::isinf(e) || std::isinf(a)) {
        bool same = (std::isnan(e) && std::isnan(a)) ||
                    (std::isinf(e) && std::isinf(a) && (e > 0) == (a > 0));
        error = same ? 0 : std::numeric_limits<double>::infinity();
      } else if (tolerance.metric == Tolerance::Metric::kUlp) {
        error = static_cast<double>(std::llabs(UlpIndex(want->data(), type, i) -
                                               UlpIndex(actual, type, i)));
      } else {
        error = std::fabs(a - e) - tolerance.rtol * std::fabs(e);
      }
    } else {
      __int128 e = IntegerValue(want->data(), type, i);
      __int128 a = IntegerValue(actual, type, i);
      __int128 d = e > a ? e - a : a - e;
      error = static_cast<double>(d);
      text = StrCat("expected ", Text(e), ", got ", Text(a));
    }
    if (error > worst) {
      worst = error;
      worst_at = i;
      worst_text = text;
    }
  }
  if (worst <= tolerance.value) return "";
  std::string unit = !is_float                                     ? ""
                     : tolerance.metric == Tolerance::Metric::kUlp ? " ULP"
                                                                   : "";
  return StrCat("output ", expected.name, ": largest error ",
                std::isinf(worst) ? std::string("inf") : StrCat(worst), unit,
                " > ", tolerance.value, " at element ", worst_at, " (",
                worst_text, ")");
}

}  // namespace webnnm::conformance
