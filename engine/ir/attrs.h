// Operator attributes: the non-tensor options of an operation.
//
// Names are WebNN's option names ("padding", "strides", "axes", ...), so that
// graphs built from the model language and from WebNN conformance vectors
// carry the same attributes. Named axes and named shapes of the model
// language are already resolved to runtime indices and sizes here.
#ifndef WEBNNM_ENGINE_IR_ATTRS_H_
#define WEBNNM_ENGINE_IR_ATTRS_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace webnnm::ir {

using AttrValue =
    std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                 std::vector<double>, std::vector<std::string>>;

class Attrs {
 public:
  void Set(const std::string& name, AttrValue value) {
    values_[name] = std::move(value);
  }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  void Erase(const std::string& name) { values_.erase(name); }
  const AttrValue* Find(const std::string& name) const;

  // Typed reads with a default for an absent attribute. An integer attribute
  // read as a float converts; other type mismatches return the default (the
  // binder and the conformance loader type attributes by the op's schema).
  int64_t GetInt(const std::string& name, int64_t fallback) const;
  double GetFloat(const std::string& name, double fallback) const;
  bool GetBool(const std::string& name, bool fallback) const;
  std::string GetString(const std::string& name,
                        const std::string& fallback) const;
  std::vector<int64_t> GetInts(const std::string& name,
                               std::vector<int64_t> fallback) const;
  std::vector<double> GetFloats(const std::string& name,
                                std::vector<double> fallback) const;
  std::vector<std::string> GetStrings(const std::string& name,
                                      std::vector<std::string> fallback) const;

  const std::map<std::string, AttrValue>& values() const { return values_; }
  bool empty() const { return values_.empty(); }

 private:
  std::map<std::string, AttrValue> values_;
};

// "[1, 2]", "0.5", "true", "nchw" — for dumps and messages.
std::string AttrToString(const AttrValue& value);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_ATTRS_H_
