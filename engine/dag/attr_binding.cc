#include "engine/dag/attr_binding.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/base/suggest.h"

namespace webnnm::dag {
namespace {

using ir::AttrKind;
using lang::Value;

std::string Layout(const ir::TensorType& t) {
  if (!t.has_names()) return ir::ShapeToString(t.shape);
  return t.ToString().substr(t.ToString().find(' ') + 1);
}

class AttrBinder {
 public:
  AttrBinder(const model::Layer& layer, const ir::TensorType& input,
             Diagnostics& diagnostics)
      : layer_(layer),
        op_(*layer.op),
        input_(input),
        diagnostics_(diagnostics) {}

  std::optional<BoundAttrs> Run() {
    for (const model::Option& option : layer_.options) {
      const ir::AttrSpec* spec = op_.FindAttr(option.attr);
      if (spec == nullptr) continue;  // model::Build checked the names
      if (op_.kind == ir::OpKind::kResample2d && option.attr == "newShape") {
        BindResampleShape(option);
        continue;
      }
      if (op_.kind == ir::OpKind::kExpand && option.attr == "newShape") {
        BindExpandShape(option);
        continue;
      }
      std::optional<ir::AttrValue> value = Convert(option, *spec);
      if (value) out_.attrs.Set(spec->name, *std::move(value));
    }
    ApplyDefaults();
    if (!ok_) return std::nullopt;
    return std::move(out_);
  }

 private:
  bool Fail(SourceRange range, std::string message) {
    diagnostics_.Error(range, StrCat(message, layer_.context));
    ok_ = false;
    return false;
  }

  // ---- scalars -------------------------------------------------------------

  std::optional<int64_t> Integer(const Value& v, const std::string& what) {
    if (v.is_number() && v.integral) return v.integer;
    Fail(v.range, StrCat(what, " must be an integer, not ", Describe(v)));
    return std::nullopt;
  }

  std::optional<double> Number(const Value& v, const std::string& what) {
    if (v.is_number()) return v.number;
    if (v.is_name("Infinity") || v.is_name("inf")) return INFINITY;
    if (v.is_name("NaN")) return NAN;
    Fail(v.range, StrCat(what, " must be a number, not ", Describe(v)));
    return std::nullopt;
  }

  static std::string Describe(const Value& v) {
    switch (v.kind) {
      case Value::Kind::kName:
        return StrCat("'", v.text, "'");
      case Value::Kind::kNumber:
        return v.text;
      case Value::Kind::kList:
        return "a list";
      case Value::Kind::kMap:
        return "a map";
      default:
        return "nothing";
    }
  }

  std::optional<std::string> Choice(const Value& v, const ir::AttrSpec& spec,
                                    const std::string& what) {
    std::vector<std::string> choices(spec.choices.begin(), spec.choices.end());
    if (v.is_name()) {
      std::string text = v.text;
      if (text == "bilinear" && op_.kind == ir::OpKind::kResample2d) {
        text = "linear";  // the specification's example spells it so
      }
      for (const std::string& c : choices) {
        if (c == text) return text;
      }
    }
    Fail(v.range, StrCat(what, " must be one of ", absl::StrJoin(choices, ", "),
                         ", not ", Describe(v),
                         v.is_name() ? DidYouMean(v.text, choices) : ""));
    return std::nullopt;
  }

  // ---- axes ----------------------------------------------------------------

  // A dimension name or a feature index, as a runtime axis.
  std::optional<int64_t> Axis(const Value& v, bool allow_symbolic,
                              const std::string& what) {
    if (v.is_name()) {
      int found = input_.FindName(v.text);
      if (found == -2) {
        Fail(v.range,
             StrCat(what, ": the input ", Layout(input_),
                    " has more than one dimension named '", v.text, "'"));
        return std::nullopt;
      }
      if (found < 0) {
        Fail(v.range,
             StrCat(what, ": '", v.text, "' is not a dimension of the input ",
                    Layout(input_), DidYouMean(v.text, input_.names)));
        return std::nullopt;
      }
      if (ir::IsSymbolic(input_.shape[found]) && !allow_symbolic) {
        Fail(v.range,
             StrCat(what, ": the ", v.text, " dimension cannot be used here"));
        return std::nullopt;
      }
      return found;
    }
    if (v.is_number() && v.integral) {
      std::vector<int> features = input_.FeatureAxes();
      int64_t n = static_cast<int64_t>(features.size());
      int64_t i = v.integer < 0 ? v.integer + n : v.integer;
      if (i < 0 || i >= n) {
        Fail(v.range,
             StrCat(what, ": feature axis ", v.integer,
                    " is out of range for the input ", Layout(input_)));
        return std::nullopt;
      }
      return features[i];
    }
    Fail(v.range,
         StrCat(what, " must be a dimension name or index, not ", Describe(v)));
    return std::nullopt;
  }

  std::optional<std::vector<int64_t>> Axes(const Value& v, bool allow_symbolic,
                                           const std::string& what) {
    std::vector<int64_t> axes;
    if (!v.is_list()) {
      std::optional<int64_t> a = Axis(v, allow_symbolic, what);
      if (!a) return std::nullopt;
      return std::vector<int64_t>{*a};
    }
    for (const Value& item : v.items) {
      std::optional<int64_t> a = Axis(item, allow_symbolic, what);
      if (!a) return std::nullopt;
      axes.push_back(*a);
    }
    return axes;
  }

  std::optional<std::vector<int64_t>> Permutation(const Value& v,
                                                  const std::string& what) {
    if (!v.is_list()) {
      Fail(v.range, StrCat(what, " must be a list of dimensions"));
      return std::nullopt;
    }
    std::optional<std::vector<int64_t>> axes = Axes(v, true, what);
    if (!axes) return std::nullopt;
    std::vector<int> features = input_.FeatureAxes();
    if (axes->size() == static_cast<size_t>(input_.rank())) return axes;
    if (axes->size() != features.size()) {
      Fail(v.range, StrCat(what, " must list the ", features.size(),
                           " feature dimensions of ", Layout(input_),
                           " (or all ", input_.rank(), " dimensions)"));
      return std::nullopt;
    }
    // Feature dimensions permuted; batch and sequence stay in place.
    std::vector<int64_t> perm(input_.rank());
    size_t next = 0;
    for (int i = 0; i < input_.rank(); ++i) {
      if (ir::IsSymbolic(input_.shape[i])) {
        perm[i] = i;
      } else {
        int64_t axis = (*axes)[next++];
        if (ir::IsSymbolic(input_.shape[axis])) {
          Fail(v.range,
               StrCat(what, " lists the ", ir::DimToString(input_.shape[axis]),
                      " dimension but not all the others"));
          return std::nullopt;
        }
        perm[i] = axis;
      }
    }
    return perm;
  }

  // ---- lists and maps of sizes ----------------------------------------------

  std::optional<std::vector<int64_t>> Ints(const Value& v,
                                           const std::string& what) {
    std::vector<int64_t> out;
    if (!v.is_list()) {
      std::optional<int64_t> one = Integer(v, what);
      if (!one) return std::nullopt;
      return std::vector<int64_t>{*one};
    }
    for (const Value& item : v.items) {
      std::optional<int64_t> i = Integer(item, StrCat(what, " values"));
      if (!i) return std::nullopt;
      out.push_back(*i);
    }
    return out;
  }

  // [h, w] or {height: h, width: w} (or the input's names for its spatial
  // dimensions, in any order).
  std::optional<std::vector<int64_t>> Spatial(const Value& v,
                                              const std::string& what) {
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

  // 0 for the height, 1 for the width.
  int SpatialIndex(const std::string& key) {
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

  bool IsNhwc() const {
    for (const model::Option& o : layer_.options) {
      if ((o.attr == "inputLayout" || o.attr == "layout") &&
          o.value.is_name()) {
        return o.value.text == "nhwc";
      }
    }
    return DefaultLayout() == "nhwc";
  }

  std::string DefaultLayout() const {
    if (input_.rank() == 4 && input_.has_names() &&
        input_.names[3] == "channels") {
      return "nhwc";
    }
    return "nchw";
  }

  // [top, bottom, left, right] or {height: p, width: q} (symmetric), a map
  // value may also be [begin, end].
  std::optional<std::vector<int64_t>> Padding(const Value& v,
                                              const std::string& what) {
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

  // One integer per feature dimension ([..] or {name: n}), grown to the full
  // rank: batch and sequence get `symbolic_fill`, unlisted ones `fill`.
  std::optional<std::vector<int64_t>> FeatureInts(const Value& v,
                                                  const std::string& attr,
                                                  const std::string& what) {
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
      for (size_t i = 0; i < features.size(); ++i)
        out[features[i]] = (*list)[i];
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

  // The symbolic dimensions of the input, which must come first.
  std::optional<std::vector<int64_t>> SymbolicPrefix(SourceRange range,
                                                     const std::string& what) {
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

  // reshape's newShape: [sizes] or {name: size, ...}; batch and sequence
  // are kept in front. A bare name keeps that input dimension's size.
  std::optional<std::vector<int64_t>> NewShape(const model::Option& option) {
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

  // expand's newShape. With a map, the input's dimensions are matched by
  // name; when the map lists them in another order, or puts new dimensions
  // between them, the input is transposed and reshaped first.
  void BindExpandShape(const model::Option& option) {
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
    for (int i = 0; i < static_cast<int>(prefix->size()); ++i)
      order.push_back(i);
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
          Fail(v.range,
               StrCat(what,
                      " must list every dimension of the "
                      "input; '",
                      input_.names.empty() ? StrCat(i) : input_.names[i],
                      "' is missing"));
          return;
        }
      }
    }
    bool identity = true;
    for (size_t i = 0; i < order.size(); ++i)
      identity &= order[i] == int64_t(i);
    if (!identity) out_.pre_permutation = order;
    if (aligned.size() != static_cast<size_t>(input_.rank())) {
      out_.pre_reshape = aligned;
    }
    out_.attrs.Set("newShape", shape);
    out_.result_names = names;
  }

  // resample2d newShape={height: 64, width: 64}: the sizes of two adjacent
  // dimensions, as WebNN's sizes and axes.
  void BindResampleShape(const model::Option& option) {
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
    out_.attrs.Set(
        "axes", std::vector<int64_t>{axis_size[0].first, axis_size[1].first});
    out_.attrs.Set("sizes", std::vector<int64_t>{axis_size[0].second,
                                                 axis_size[1].second});
  }

  // ---- conversion by kind
  // ----------------------------------------------------

  std::optional<ir::AttrValue> Convert(const model::Option& option,
                                       const ir::AttrSpec& spec) {
    const Value& v = option.value;
    std::string what = StrCat(op_.name, " ", option.key);
    switch (spec.kind) {
      case AttrKind::kInt:
      case AttrKind::kUint: {
        std::optional<int64_t> i = Integer(v, what);
        if (i && spec.kind == AttrKind::kUint && *i < 0) {
          Fail(v.range, StrCat(what, " must not be negative"));
          return std::nullopt;
        }
        if (i) return *i;
        return std::nullopt;
      }
      case AttrKind::kFloat: {
        std::optional<double> d = Number(v, what);
        if (d) return *d;
        return std::nullopt;
      }
      case AttrKind::kBool:
        if (v.is_name("true")) return true;
        if (v.is_name("false")) return false;
        Fail(v.range,
             StrCat(what, " must be true or false, not ", Describe(v)));
        return std::nullopt;
      case AttrKind::kEnum: {
        std::optional<std::string> s = Choice(v, spec, what);
        if (s) return *s;
        return std::nullopt;
      }
      case AttrKind::kDType:
        if (v.is_name() && ir::ParseDType(v.text)) return v.text;
        Fail(
            v.range,
            StrCat(what, " must be a data type (",
                   absl::StrJoin(ir::AllDTypeNames(), ", "), ")",
                   v.is_name() ? DidYouMean(v.text, ir::AllDTypeNames()) : ""));
        return std::nullopt;
      case AttrKind::kAxis: {
        bool symbolic = op_.kind == ir::OpKind::kGather;
        std::optional<int64_t> a = Axis(v, symbolic, what);
        if (a) return *a;
        return std::nullopt;
      }
      case AttrKind::kAxes: {
        std::optional<std::vector<int64_t>> a = Axes(v, false, what);
        if (a) return *a;
        return std::nullopt;
      }
      case AttrKind::kPermutation: {
        std::optional<std::vector<int64_t>> p = Permutation(v, what);
        if (p) return *p;
        return std::nullopt;
      }
      case AttrKind::kInts: {
        std::optional<std::vector<int64_t>> l = Ints(v, what);
        if (l) return *l;
        return std::nullopt;
      }
      case AttrKind::kFloats: {
        std::vector<double> out;
        std::vector<Value> items =
            v.is_list() ? v.items : std::vector<Value>{v};
        for (const Value& item : items) {
          std::optional<double> d = Number(item, what);
          if (!d) return std::nullopt;
          out.push_back(*d);
        }
        return out;
      }
      case AttrKind::kEnums: {
        std::vector<std::string> out;
        std::vector<Value> items =
            v.is_list() ? v.items : std::vector<Value>{v};
        for (const Value& item : items) {
          std::optional<std::string> s = Choice(item, spec, what);
          if (!s) return std::nullopt;
          out.push_back(*s);
        }
        return out;
      }
      case AttrKind::kShape: {
        std::optional<std::vector<int64_t>> s = NewShape(option);
        if (s) return *s;
        return std::nullopt;
      }
      case AttrKind::kSpatial: {
        std::optional<std::vector<int64_t>> s = Spatial(v, what);
        if (s) return *s;
        return std::nullopt;
      }
      case AttrKind::kPadding: {
        std::optional<std::vector<int64_t>> p = Padding(v, what);
        if (p) return *p;
        return std::nullopt;
      }
      case AttrKind::kFeatureInts: {
        std::optional<std::vector<int64_t>> f = FeatureInts(v, spec.name, what);
        if (f) return *f;
        return std::nullopt;
      }
      case AttrKind::kSplits: {
        if (v.is_list()) {
          std::optional<std::vector<int64_t>> l = Ints(v, what);
          if (l) return *l;
          return std::nullopt;
        }
        std::optional<int64_t> i = Integer(v, what);
        if (i) return *i;
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // ---- defaults
  // --------------------------------------------------------------

  void ApplyDefaults() {
    std::vector<int> features = input_.FeatureAxes();
    for (const ir::AttrSpec& spec : op_.attrs) {
      if (out_.attrs.Has(spec.name)) continue;
      switch (spec.language_default) {
        case ir::LanguageDefault::kNone:
          break;
        case ir::LanguageDefault::kLastAxis:
          if (input_.rank() > 0) {
            out_.attrs.Set(spec.name, int64_t{input_.rank() - 1});
          }
          break;
        case ir::LanguageDefault::kFirstFeatureAxis:
          if (!features.empty()) {
            out_.attrs.Set(spec.name, int64_t{features.front()});
          }
          break;
        case ir::LanguageDefault::kChannelAxis:
          if (input_.rank() > 0) {
            out_.attrs.Set(spec.name, int64_t{input_.ChannelAxis()});
          }
          break;
        case ir::LanguageDefault::kAllFeatureAxes:
          out_.attrs.Set(spec.name, std::vector<int64_t>(features.begin(),
                                                         features.end()));
          break;
      }
    }
    // Image layouts follow the dimension names.
    for (const char* layout : {"inputLayout", "layout"}) {
      const ir::AttrSpec* spec = op_.FindAttr(layout);
      if (spec != nullptr && !out_.attrs.Has(layout) &&
          spec->choices.size() == 2 &&
          std::string(spec->choices[0]) == "nchw") {
        out_.attrs.Set(layout, DefaultLayout());
      }
    }
    // transpose: reverse the feature dimensions, batch and sequence in place.
    if (op_.kind == ir::OpKind::kTranspose && !out_.attrs.Has("permutation")) {
      std::vector<int64_t> perm(input_.rank());
      size_t next = features.size();
      for (int i = 0; i < input_.rank(); ++i) {
        perm[i] = ir::IsSymbolic(input_.shape[i]) ? i : features[--next];
      }
      out_.attrs.Set("permutation", perm);
    }
  }

  const model::Layer& layer_;
  const ir::OpDef& op_;
  const ir::TensorType& input_;
  Diagnostics& diagnostics_;
  BoundAttrs out_;
  bool ok_ = true;
};

}  // namespace

std::optional<BoundAttrs> BindAttrs(const model::Layer& layer,
                                    const ir::TensorType& input,
                                    Diagnostics& diagnostics) {
  return AttrBinder(layer, input, diagnostics).Run();
}

}  // namespace webnnm::dag
