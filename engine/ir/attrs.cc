#include "engine/ir/attrs.h"

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"

namespace webnnm::ir {

const AttrValue* Attrs::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t Attrs::GetInt(const std::string& name, int64_t fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* i = std::get_if<int64_t>(v)) return *i;
  return fallback;
}

double Attrs::GetFloat(const std::string& name, double fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* d = std::get_if<double>(v)) return *d;
  if (auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return fallback;
}

bool Attrs::GetBool(const std::string& name, bool fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* b = std::get_if<bool>(v)) return *b;
  return fallback;
}

std::string Attrs::GetString(const std::string& name,
                             const std::string& fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* s = std::get_if<std::string>(v)) return *s;
  return fallback;
}

std::vector<int64_t> Attrs::GetInts(const std::string& name,
                                    std::vector<int64_t> fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
  return fallback;
}

std::vector<double> Attrs::GetFloats(const std::string& name,
                                     std::vector<double> fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* l = std::get_if<std::vector<double>>(v)) return *l;
  if (auto* l = std::get_if<std::vector<int64_t>>(v)) {
    return std::vector<double>(l->begin(), l->end());
  }
  return fallback;
}

std::vector<std::string> Attrs::GetStrings(
    const std::string& name, std::vector<std::string> fallback) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return fallback;
  if (auto* l = std::get_if<std::vector<std::string>>(v)) return *l;
  return fallback;
}

std::string AttrToString(const AttrValue& value) {
  struct Printer {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return StrCat(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(const std::vector<int64_t>& v) const {
      return StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::vector<double>& v) const {
      return StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::vector<std::string>& v) const {
      return StrCat("[", absl::StrJoin(v, ", "), "]");
    }
  };
  return std::visit(Printer{}, value);
}

}  // namespace webnnm::ir
