#include "engine/train/hyperparameters_proto.h"

#include "engine/base/strings.h"

namespace webnnm::train {
namespace {

using google::protobuf::FieldDescriptor;

const FieldDescriptor& FieldOf(const HyperparameterInfo& info) {
  // Present for every entry: hyperparameters_test keeps them equal.
  return *v1::Hyperparameters::descriptor()->FindFieldByName(
      ProtoFieldName(info.name));
}

// The field's value in the entry's type (the zero of its type when absent).
HyperValue Read(const v1::Hyperparameters& m, const FieldDescriptor& f) {
  const google::protobuf::Reflection& r = *m.GetReflection();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return static_cast<int64_t>(r.GetInt32(m, &f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return r.GetUInt64(m, &f);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return r.GetDouble(m, &f);
    default:
      return r.GetString(m, &f);
  }
}

void Write(const HyperValue& v, const FieldDescriptor& f,
           v1::Hyperparameters& m) {
  const google::protobuf::Reflection& r = *m.GetReflection();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r.SetInt32(&m, &f, static_cast<int32_t>(std::get<int64_t>(v)));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r.SetUInt64(&m, &f, std::get<uint64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r.SetDouble(&m, &f, std::get<double>(v));
      break;
    default:
      r.SetString(&m, &f, std::get<std::string>(v));
      break;
  }
}

}  // namespace

absl::StatusOr<Hyperparameters> HyperparametersFromProto(
    const v1::Hyperparameters& message, AbsentField absent) {
  Hyperparameters h;
  const google::protobuf::Reflection& r = *message.GetReflection();
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    const FieldDescriptor& field = FieldOf(info);
    if (!r.HasField(message, &field) &&
        (absent == AbsentField::kDefault || info.optional)) {
      continue;
    }
    absl::Status set = SetHyperparameter(h, info, Read(message, field));
    if (!set.ok()) return set;
  }
  return h;
}

v1::Hyperparameters HyperparametersToProto(const Hyperparameters& h) {
  std::set<std::string> all;
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    all.insert(std::string(info.name));
  }
  return HyperparametersToProto(h, all);
}

v1::Hyperparameters HyperparametersToProto(const Hyperparameters& h,
                                           const std::set<std::string>& only) {
  v1::Hyperparameters message;
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    if (!only.count(std::string(info.name))) continue;
    std::optional<HyperValue> v = GetHyperparameter(h, info);
    if (v) Write(*v, FieldOf(info), message);
  }
  return message;
}

}  // namespace webnnm::train
