#include "backends/cpu/testing/run_op.h"

#include <cmath>

#include "engine/base/float16.h"
#include "engine/base/strings.h"

namespace webnnm::backends::cpu::testing {
namespace {

template <typename T>
void Put(std::vector<std::byte>& out, T v) {
  std::byte b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

template <typename T>
T Get(const std::byte* p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

std::vector<std::byte> Encode(const Tensor& t) {
  std::vector<std::byte> out;
  for (double v : t.values) {
    switch (t.dtype) {
      case ir::DType::kFloat32:
        Put(out, static_cast<float>(v));
        break;
      case ir::DType::kFloat16:
        Put(out, DoubleToHalf(v));
        break;
      case ir::DType::kInt32:
        Put(out, static_cast<int32_t>(v));
        break;
      case ir::DType::kUint32:
        Put(out, static_cast<uint32_t>(v));
        break;
      case ir::DType::kInt64:
        Put(out, static_cast<int64_t>(v));
        break;
      case ir::DType::kUint64:
        Put(out, static_cast<uint64_t>(v));
        break;
      case ir::DType::kInt8:
      case ir::DType::kInt4:
        Put(out, static_cast<int8_t>(v));
        break;
      case ir::DType::kUint8:
      case ir::DType::kUint4:
        Put(out, static_cast<uint8_t>(v));
        break;
    }
  }
  return out;
}

std::vector<double> Decode(ir::DType dtype, const std::byte* p, size_t count) {
  std::vector<double> out;
  for (size_t i = 0; i < count; ++i) {
    switch (dtype) {
      case ir::DType::kFloat32:
        out.push_back(Get<float>(p, i));
        break;
      case ir::DType::kFloat16:
        out.push_back(HalfToFloat(Get<uint16_t>(p, i)));
        break;
      case ir::DType::kInt32:
        out.push_back(Get<int32_t>(p, i));
        break;
      case ir::DType::kUint32:
        out.push_back(Get<uint32_t>(p, i));
        break;
      case ir::DType::kInt64:
        out.push_back(Get<int64_t>(p, i));
        break;
      case ir::DType::kUint64:
        out.push_back(Get<uint64_t>(p, i));
        break;
      case ir::DType::kInt8:
      case ir::DType::kInt4:
        out.push_back(Get<int8_t>(p, i));
        break;
      case ir::DType::kUint8:
      case ir::DType::kUint4:
        out.push_back(Get<uint8_t>(p, i));
        break;
    }
  }
  return out;
}

absl::StatusOr<std::vector<Tensor>> RunOp(
    const std::string& op, const std::vector<std::optional<Tensor>>& operands,
    const ir::Attrs& attrs, bool constants) {
  return RunOp(op, operands, attrs, RunOptions{.constants = constants});
}

absl::StatusOr<std::vector<Tensor>> RunOp(
    const std::string& op, const std::vector<std::optional<Tensor>>& operands,
    const ir::Attrs& attrs, const RunOptions& options) {
  const bool constants = options.constants;
  const ir::OpDef* def = ir::FindOp(op);
  if (def == nullptr) return absl::NotFoundError(StrCat("no op ", op));
  ir::GraphBuilder builder;
  std::vector<ir::ValueId> values;
  std::vector<std::pair<std::string, std::vector<std::byte>>> inputs;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i]) {
      values.push_back(ir::kNoValue);
      continue;
    }
    ir::TensorType type;
    type.dtype = operands[i]->dtype;
    type.shape = operands[i]->shape;
    std::string name = StrCat("x", i);
    std::vector<std::byte> bytes = Encode(*operands[i]);
    if (constants) {
      auto data = std::make_shared<ir::ConstantData>();
      data->bytes.assign(
          reinterpret_cast<uint8_t*>(bytes.data()),
          reinterpret_cast<uint8_t*>(bytes.data()) + bytes.size());
      absl::StatusOr<ir::ValueId> v = builder.Constant(name, type, data);
      if (!v.ok()) return v.status();
      values.push_back(*v);
    } else {
      values.push_back(builder.Input(name, type));
      inputs.push_back({name, std::move(bytes)});
    }
  }
  absl::StatusOr<std::vector<ir::ValueId>> results =
      builder.Op(def->kind, values, attrs);
  if (!results.ok()) return results.status();
  for (size_t i = 0; i < results->size(); ++i) {
    builder.Output(StrCat("y", i), (*results)[i]);
  }
  ir::Graph graph = builder.Finish();
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend("cpu");
  if (!backend.ok()) return backend.status();
  CompileOptions compile;
  compile.reference_kernels = options.reference_kernels;
  compile.library_minimum_elements = options.library_minimum_elements;
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      (*backend)->Compile(graph, compile);
  if (!exe.ok()) return exe.status();
  if (options.implementations) {
    *options.implementations = (*exe)->implementations();
  }
  for (const auto& [name, bytes] : inputs) {
    int i = (*exe)->FindInput(name);
    std::memcpy((*exe)->input(i).data(), bytes.data(), bytes.size());
  }
  absl::Status status = (*exe)->Run();
  if (!status.ok()) return status;
  std::vector<Tensor> out;
  for (size_t i = 0; i < (*exe)->outputs().size(); ++i) {
    const TensorSpec& spec = (*exe)->outputs()[i];
    size_t count = spec.byte_size / ir::RuntimeElementSize(spec.dtype);
    out.push_back({spec.dtype, spec.shape,
                   Decode(spec.dtype, (*exe)->output(i).data(), count)});
  }
  return out;
}

Tensor RunOne(const std::string& op,
              const std::vector<std::optional<Tensor>>& operands,
              const ir::Attrs& attrs) {
  absl::StatusOr<std::vector<Tensor>> results = RunOp(op, operands, attrs);
  if (!results.ok() || results->empty()) return Tensor{};
  return results->front();
}

ir::Attrs A(
    std::initializer_list<std::pair<std::string, ir::AttrValue>> values) {
  ir::Attrs attrs;
  for (const auto& [name, value] : values) attrs.Set(name, value);
  return attrs;
}

}  // namespace webnnm::backends::cpu::testing
