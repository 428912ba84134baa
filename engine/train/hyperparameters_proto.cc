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

// Writes `v` when it has the field's type; false otherwise.
bool Write(const HyperValue& v, const FieldDescriptor& f,
           v1::Hyperparameters& m) {
  const google::protobuf::Reflection& r = *m.GetReflection();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const int64_t* i = std::get_if<int64_t>(&v);
      if (!i || *i < INT32_MIN || *i > INT32_MAX) return false;
      r.SetInt32(&m, &f, static_cast<int32_t>(*i));
      return true;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      const uint64_t* u = std::get_if<uint64_t>(&v);
      if (!u) return false;
      r.SetUInt64(&m, &f, *u);
      return true;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      const double* d = std::get_if<double>(&v);
      if (!d) return false;
      r.SetDouble(&m, &f, *d);
      return true;
    }
    default: {
      const std::string* s = std::get_if<std::string>(&v);
      if (!s) return false;
      r.SetString(&m, &f, *s);
      return true;
    }
  }
}

}  // namespace

HyperparameterValues ValuesFromProto(const v1::Hyperparameters& message) {
  HyperparameterValues values;
  const google::protobuf::Reflection& r = *message.GetReflection();
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    const FieldDescriptor& field = FieldOf(info);
    if (r.HasField(message, &field)) {
      values[std::string(info.name)] = Read(message, field);
    }
  }
  return values;
}

v1::Hyperparameters ValuesToProto(const HyperparameterValues& values) {
  v1::Hyperparameters message;
  for (const auto& [name, value] : values) {
    if (const HyperparameterInfo* info = FindHyperparameter(name)) {
      Write(value, FieldOf(*info), message);
    }
  }
  return message;
}

absl::StatusOr<Hyperparameters> HyperparametersFromProto(
    const v1::Hyperparameters& message, AbsentField absent) {
  HyperparameterValues values = ValuesFromProto(message);
  if (absent == AbsentField::kZero) {
    for (const HyperparameterInfo& info : HyperparameterTable()) {
      // Fields added once every field had presence: absent, they were
      // not there when the snapshot was written (the default).
      if (info.name == "replicas") continue;
      if (!info.optional) {
        values.try_emplace(std::string(info.name), Read(message, FieldOf(info)));
      }
    }
  }
  return ResolveHyperparameters(values);
}

v1::Hyperparameters HyperparametersToProto(const Hyperparameters& h) {
  HyperparameterValues values;
  for (const HyperparameterInfo& info : HyperparameterTable()) {
    if (std::optional<HyperValue> v = GetHyperparameter(h, info)) {
      values[std::string(info.name)] = *v;
    }
  }
  return ValuesToProto(values);
}

}  // namespace webnnm::train
