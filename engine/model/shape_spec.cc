#include "engine/model/shape_spec.h"

#include <set>

#include "engine/base/strings.h"

namespace webnnm::model {

bool CheckShapeSpec(const lang::ShapeSpec& shape, ShapeUse use,
                    Diagnostics& diagnostics) {
  bool ok = true;
  std::set<std::string> seen;
  bool io = use == ShapeUse::kInput || use == ShapeUse::kOutput;
  for (const lang::Dim& dim : shape.dims) {
    if (dim.name.empty()) continue;
    if (dim.name == "batch") {
      diagnostics.Error(dim.name_range,
                        "'batch' is reserved: the batch dimension is implicit "
                        "and bound when the model is compiled");
      ok = false;
      continue;
    }
    if (dim.name == "sequence") {
      if (!io) {
        diagnostics.Error(dim.name_range,
                          "'sequence' is reserved: only a block's input or "
                          "output may list it");
        ok = false;
      } else if (dim.size) {
        diagnostics.Error(dim.range,
                          "'sequence' takes no size: the sequence length is "
                          "bound when the model is compiled");
        ok = false;
      }
    } else if (!dim.size) {
      diagnostics.Error(dim.name_range,
                        StrCat("dimension '", dim.name,
                               "' needs a size, as in {", dim.name, ": 8}"));
      ok = false;
    }
    if (!seen.insert(dim.name).second) {
      diagnostics.Error(dim.name_range,
                        StrCat("dimension name '", dim.name,
                               "' appears twice in this shape; dimension "
                               "names must be unique"));
      ok = false;
    }
  }
  return ok;
}

std::optional<lang::ShapeSpec> ShapeFromValue(const lang::Value& value,
                                              ShapeUse use,
                                              Diagnostics& diagnostics) {
  lang::ShapeSpec shape;
  shape.range = value.range;
  auto size_of = [&](const lang::Value& v, lang::Dim& dim) {
    if (!v.is_number() || !v.integral || v.integer <= 0) {
      diagnostics.Error(v.range, StrCat("a dimension size must be a positive "
                                        "integer, found ",
                                        v.is_number() ? v.text : "a name"));
      return false;
    }
    dim.size = v.integer;
    return true;
  };
  bool ok = true;
  if (value.is_list()) {
    for (const lang::Value& item : value.items) {
      lang::Dim dim;
      dim.range = item.range;
      if (size_of(item, dim)) {
        shape.dims.push_back(dim);
      } else {
        ok = false;
      }
    }
  } else if (value.is_map()) {
    shape.named = true;
    for (const lang::MapItem& item : value.entries) {
      lang::Dim dim;
      dim.name = item.key;
      dim.name_range = item.key_range;
      dim.range = item.value.kind == lang::Value::Kind::kNone
                      ? item.key_range
                      : SourceRange::Cover(item.key_range, item.value.range);
      if (item.value.kind == lang::Value::Kind::kNone ||
          size_of(item.value, dim)) {
        shape.dims.push_back(dim);
      } else {
        ok = false;
      }
    }
  } else {
    diagnostics.Error(value.range,
                      "expected a shape such as [128] or "
                      "{channels: 8, height: 26, width: 26}");
    return std::nullopt;
  }
  if (!ok || !CheckShapeSpec(shape, use, diagnostics)) return std::nullopt;
  return shape;
}

}  // namespace webnnm::model
