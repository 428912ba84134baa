// Options that give sizes: new shapes (reshape, expand, resample2d),
// spatial pairs, padding and per-dimension lists.
#include <algorithm>
#include <set>

#include "engine/base/strings.h"
#include "engine/dag/attr_binder.h"

namespace webnnm::dag {

std::optional<std::vector<int64_t>> AttrBinder::Spatial(
    const Value& v, const std::string& what) {
  if (v.is_list()) {
    std::optional<std::vector<int64_t>> list = Ints(v, what);
    if (list && list->size() != 2) {
      Fail(v.range, StrCat(what, " takes two values [height, width]"));
      return std::nullopt;
    }
    return list;
  }
  if (!v.is_map()) {
    Fail(v.range, StrCat(what,
                         " takes [height, width] or {height: h, "
                         "width: w}"));
    return std::nullopt;
  }
  std::vector<int64_t> out(2, -1);
  for (const lang::MapItem& item : v.entries) {
    int index = SpatialIndex(item.key);
    if (index < 0) {
      Fail(item.key_range,
           StrCat(what, ": '", item.key, "' is not height or width"));
      return std::nullopt;
    }
    std::optional<int64_t> size = Integer(item.value, what);
    if (!size) return std::nullopt;
    out[index] = *size;
  }
  if (out[0] < 0 || out[1] < 0) {
    Fail(v.range, StrCat(what, " needs both height and width"));
    return std::nullopt;
  }
  return out;
}

int AttrBinder::SpatialIndex(const std::string& key) {
  if (key == "height") return 0;
  if (key == "width") return 1;
  int axis = input_.FindName(key);
  if (axis < 0 || input_.rank() != 4) return -1;
  bool nhwc = IsNhwc();
  int h = nhwc ? 1 : 2;
  if (axis == h) return 0;
  if (axis == h + 1) return 1;
  return -1;
}

bool AttrBinder::IsNhwc() const {
  for (const model::Option& o : layer_.options) {
    if ((o.attr == "inputLayout" || o.attr == "layout") && o.value.is_name()) {
      return o.value.text == "nhwc";
    }
  }
  return DefaultLayout() == "nhwc";
}

std::string AttrBinder::DefaultLayout() const {
  if (input_.rank() == 4 && input_.has_names() &&
      input_.names[3] == "channels") {
    return "nhwc";
  }
  return "nchw";
}

std::optional<std::vector<int64_t>> AttrBinder::Padding(
    const Value& v, const std::string& what) {
  if (v.is_list()) {
    std::optional<std::vector<int64_t>> list = Ints(v, what);
    if (list && list->size() != 4) {
      Fail(v.range, StrCat(what,
                           " takes four values [top, bottom, left, "
                           "right] or {height: p, width: q}"));
      return std::nullopt;
    }
    return list;
  }
  if (!v.is_map()) {
    Fail(v.range, StrCat(what,
                         " takes [top, bottom, left, right] or "
                         "{height: p, width: q}"));
    return std::nullopt;
  }
  std::vector<int64_t> out(4, 0);
  for (const lang::MapItem& item : v.entries) {
    int index = SpatialIndex(item.key);
    if (index < 0) {
      Fail(item.key_range,
           StrCat(what, ": '", item.key, "' is not height or width"));
      return std::nullopt;
    }
    std::optional<std::vector<int64_t>> pair = Ints(item.value, what);
    if (!pair || pair->size() > 2) {
      if (pair)
        Fail(item.value.range, StrCat(what, " takes p or [begin, end]"));
      return std::nullopt;
    }
    out[2 * index] = (*pair)[0];
    out[2 * index + 1] = pair->size() == 2 ? (*pair)[1] : (*pair)[0];
  }
  return out;
}

std::optional<std::vector<int64_t>> AttrBinder::FeatureInts(
    const Value& v, const std::string& attr, const std::string& what) {
  bool sizes = attr == "sizes";
  bool ones = attr == "strides" || attr == "repetitions";
  std::vector<int64_t> out(input_.rank());
  for (int i = 0; i < input_.rank(); ++i) {
    out[i] = sizes ? input_.shape[i] : (ones ? 1 : 0);
  }
  std::vector<int> features = input_.FeatureAxes();
  if (v.is_list()) {
    std::optional<std::vector<int64_t>> list = Ints(v, what);
    if (!list) return std::nullopt;
    if (list->size() == static_cast<size_t>(input_.rank()) &&
        list->size() != features.size()) {
      return list;  // written for every dimension
    }
    if (list->size() != features.size()) {
      Fail(v.range, StrCat(what,
                           " needs one value per feature dimension "
                           "of ",
                           Layout(input_), " (", features.size(), "), not ",
                           list->size()));
      return std::nullopt;
    }
    for (size_t i = 0; i < features.size(); ++i) out[features[i]] = (*list)[i];
    return out;
  }
  if (!v.is_map()) {
    Fail(v.range, StrCat(what, " takes a list or a {name: value} map"));
    return std::nullopt;
  }
  for (const lang::MapItem& item : v.entries) {
    Value key;
    key.kind = Value::Kind::kName;
    key.text = item.key;
    key.range = item.key_range;
    std::optional<int64_t> axis = Axis(key, false, what);
    if (!axis) return std::nullopt;
    std::optional<int64_t> n = Integer(item.value, what);
    if (!n) return std::nullopt;
    out[*axis] = *n;
  }
  return out;
}

std::optional<std::vector<int64_t>> AttrBinder::SymbolicPrefix(
    SourceRange range, const std::string& what) {
  std::vector<int64_t> prefix;
  bool features_seen = false;
  for (int64_t d : input_.shape) {
    if (ir::IsSymbolic(d)) {
      if (features_seen) {
        Fail(range, StrCat(what,
                           " needs the batch and sequence dimensions "
                           "first, but the input is ",
                           Layout(input_)));
        return std::nullopt;
      }
      prefix.push_back(d);
    } else {
      features_seen = true;
    }
  }
  return prefix;
}

std::optional<std::vector<int64_t>> AttrBinder::NewShape(
    const model::Option& option) {
  const Value& v = option.value;
  std::string what = StrCat(op_.name, " newShape");
  std::optional<std::vector<int64_t>> shape = SymbolicPrefix(v.range, what);
  if (!shape) return std::nullopt;
  std::vector<std::string> names;
  for (int64_t d : *shape) names.push_back(ir::DimToString(d));
  if (v.is_list()) {
    std::optional<std::vector<int64_t>> sizes = Ints(v, what);
    if (!sizes) return std::nullopt;
    shape->insert(shape->end(), sizes->begin(), sizes->end());
    return shape;
  }
  if (!v.is_map()) {
    Fail(v.range, StrCat(what, " takes [sizes] or {name: size, ...}"));
    return std::nullopt;
  }
  std::set<std::string> seen;
  for (const lang::MapItem& item : v.entries) {
    if (!seen.insert(item.key).second || item.key == "batch" ||
        item.key == "sequence") {
      Fail(item.key_range,
           StrCat(what, ": '", item.key, "' is reserved or listed twice"));
      return std::nullopt;
    }
    int64_t size;
    if (item.value.kind == Value::Kind::kNone) {
      int axis = input_.FindName(item.key);
      if (axis < 0 || ir::IsSymbolic(input_.shape[axis])) {
        Fail(item.key_range, StrCat(what, ": '", item.key,
                                    "' needs a size (it is not a "
                                    "dimension of the input ",
                                    Layout(input_), ")"));
        return std::nullopt;
      }
      size = input_.shape[axis];
    } else {
      std::optional<int64_t> n = Integer(item.value, what);
      if (!n) return std::nullopt;
      size = *n;
    }
    shape->push_back(size);
    names.push_back(item.key);
  }
  out_.result_names = names;
  return shape;
}

void AttrBinder::BindExpandShape(const model::Option& option) {
  const Value& v = option.value;
  if (!v.is_map()) {
    std::optional<std::vector<int64_t>> shape = NewShape(option);
    if (shape) out_.attrs.Set("newShape", *shape);
    return;
  }
  std::string what = "expand newShape";
  std::optional<std::vector<int64_t>> prefix = SymbolicPrefix(v.range, what);
  if (!prefix) return;
  std::vector<int64_t> shape = *prefix, aligned = *prefix;
  std::vector<std::string> names;
  for (int64_t d : *prefix) names.push_back(ir::DimToString(d));
  std::vector<int64_t> order;  // input axes in the map's order
  for (int i = 0; i < static_cast<int>(prefix->size()); ++i) order.push_back(i);
  for (const lang::MapItem& item : v.entries) {
    int axis = input_.FindName(item.key);
    if (axis >= 0 && ir::IsSymbolic(input_.shape[axis])) axis = -1;
    int64_t size;
    if (item.value.kind == Value::Kind::kNone) {
      if (axis < 0) {
        Fail(item.key_range,
             StrCat(what, ": new dimension '", item.key, "' needs a size"));
        return;
      }
      size = input_.shape[axis];
    } else {
      std::optional<int64_t> n = Integer(item.value, what);
      if (!n) return;
      size = *n;
    }
    if (axis >= 0) {
      if (std::find(order.begin(), order.end(), axis) != order.end()) {
        Fail(item.key_range, StrCat(what, " lists '", item.key, "' twice"));
        return;
      }
      order.push_back(axis);
      aligned.push_back(input_.shape[axis]);
    } else {
      aligned.push_back(1);
    }
    shape.push_back(size);
    names.push_back(item.key);
  }
  if (order.size() != static_cast<size_t>(input_.rank())) {
    for (int i = 0; i < input_.rank(); ++i) {
      if (std::find(order.begin(), order.end(), i) == order.end()) {
        Fail(v.range, StrCat(what,
                             " must list every dimension of the "
                             "input; '",
                             input_.names.empty() ? StrCat(i) : input_.names[i],
                             "' is missing"));
        return;
      }
    }
  }
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity &= order[i] == int64_t(i);
  if (!identity) out_.pre_permutation = order;
  if (aligned.size() != static_cast<size_t>(input_.rank())) {
    out_.pre_reshape = aligned;
  }
  out_.attrs.Set("newShape", shape);
  out_.result_names = names;
}

void AttrBinder::BindPoolPadding(const model::Option& option) {
  for (const model::Option& other : layer_.options) {
    if (other.attr == "padding") {
      Fail(option.key_range, StrCat(op_.name,
                                    " takes padding= or paddingBeginning= and "
                                    "paddingEnding=, not both"));
      return;
    }
  }
  std::optional<std::vector<int64_t>> half =
      Spatial(option.value, StrCat(op_.name, " ", option.key));
  if (!half) return;
  std::vector<int64_t> padding = out_.attrs.GetInts("padding", {0, 0, 0, 0});
  const int end = option.attr == "paddingEnding" ? 1 : 0;
  padding[end] = (*half)[0];      // height: top or bottom
  padding[2 + end] = (*half)[1];  // width: left or right
  out_.attrs.Set("padding", padding);
}

void AttrBinder::BindResampleShape(const model::Option& option) {
  const Value& v = option.value;
  if (!v.is_map() || v.entries.size() != 2) {
    Fail(v.range,
         "resample2d newShape takes two named sizes, such as "
         "{height: 64, width: 64}");
    return;
  }
  std::vector<std::pair<int64_t, int64_t>> axis_size;
  for (const lang::MapItem& item : v.entries) {
    Value key;
    key.kind = Value::Kind::kName;
    key.text = item.key;
    key.range = item.key_range;
    std::optional<int64_t> axis = Axis(key, false, "resample2d newShape");
    if (!axis) return;
    std::optional<int64_t> size = Integer(item.value, "resample2d newShape");
    if (!size) return;
    axis_size.push_back({*axis, *size});
  }
  std::sort(axis_size.begin(), axis_size.end());
  out_.attrs.Set("axes",
                 std::vector<int64_t>{axis_size[0].first, axis_size[1].first});
  out_.attrs.Set(
      "sizes", std::vector<int64_t>{axis_size[0].second, axis_size[1].second});
}

}  // namespace webnnm::dag
