#include "engine/dag/pin.h"

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"

namespace webnnm::dag {

Pin Pin::FromSpec(const lang::ShapeSpec& spec) {
  Pin pin;
  pin.range = spec.range;
  for (const lang::Dim& dim : spec.dims) {
    if (dim.name == "sequence") continue;  // symbolic: not a feature
    pin.dims.push_back(dim.size.value_or(1));
    if (spec.named) pin.names.push_back(dim.name);
  }
  return pin;
}

std::string Pin::ToString() const {
  if (names.empty()) return StrCat("[", absl::StrJoin(dims, ", "), "]");
  std::vector<std::string> parts;
  for (size_t i = 0; i < dims.size(); ++i) {
    parts.push_back(StrCat(names[i], ": ", dims[i]));
  }
  return StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::optional<ir::TensorType> ApplyPin(const ir::TensorType& type,
                                       const Pin& pin) {
  std::vector<int> features = type.FeatureAxes();
  if (features.size() != pin.dims.size()) return std::nullopt;
  ir::TensorType out = type;
  for (size_t i = 0; i < features.size(); ++i) {
    out.shape[features[i]] = pin.dims[i];
    if (!pin.names.empty() && out.has_names()) {
      out.names[features[i]] = pin.names[i];
    }
  }
  return out;
}

ir::TensorType ExpectedType(const Pin& pin, const ir::TensorType& like) {
  ir::TensorType out;
  out.dtype = like.dtype;
  for (int i = 0; i < like.rank(); ++i) {
    if (ir::IsSymbolic(like.shape[i])) {
      out.shape.push_back(like.shape[i]);
      out.names.push_back(like.has_names() ? like.names[i] : "");
    }
  }
  for (size_t i = 0; i < pin.dims.size(); ++i) {
    out.shape.push_back(pin.dims[i]);
    // Unnamed dimensions are named as a block input's would be (ERRATA 10e).
    out.names.push_back(!pin.names.empty()     ? pin.names[i]
                        : pin.dims.size() == 1 ? "features"
                                               : StrCat("features", i));
  }
  return out;
}

}  // namespace webnnm::dag
