#include "engine/dag/attr_binding.h"

#include <cmath>

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/dag/attr_binder.h"

namespace webnnm::dag {

std::string Layout(const ir::TensorType& t) {
  if (!t.has_names()) return ir::ShapeToString(t.shape);
  return t.ToString().substr(t.ToString().find(' ') + 1);
}

std::optional<BoundAttrs> AttrBinder::Run() {
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
    if (option.attr == "paddingBeginning" || option.attr == "paddingEnding") {
      BindPoolPadding(option);
      continue;
    }
    std::optional<ir::AttrValue> value = Convert(option, *spec);
    if (value) out_.attrs.Set(spec->name, *std::move(value));
  }
  ApplyDefaults();
  if (!ok_) return std::nullopt;
  return std::move(out_);
}

bool AttrBinder::Fail(SourceRange range, std::string message) {
  diagnostics_.Error(range, StrCat(message, layer_.context));
  ok_ = false;
  return false;
}

std::optional<int64_t> AttrBinder::Integer(const Value& v,
                                           const std::string& what) {
  if (v.is_number() && v.integral) return v.integer;
  Fail(v.range, StrCat(what, " must be an integer, not ", Describe(v)));
  return std::nullopt;
}

std::optional<double> AttrBinder::Number(const Value& v,
                                         const std::string& what) {
  if (v.is_number()) return v.number;
  if (v.is_name("Infinity") || v.is_name("inf")) return INFINITY;
  if (v.is_name("NaN")) return NAN;
  Fail(v.range, StrCat(what, " must be a number, not ", Describe(v)));
  return std::nullopt;
}

std::string AttrBinder::Describe(const Value& v) {
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

std::optional<std::string> AttrBinder::Choice(const Value& v,
                                              const ir::AttrSpec& spec,
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
  Fail(v.range,
       StrCat(what, " must be one of ", absl::StrJoin(choices, ", "), ", not ",
              Describe(v), v.is_name() ? DidYouMean(v.text, choices) : ""));
  return std::nullopt;
}

std::optional<std::string> AttrBinder::GateLayout(const Value& v,
                                                  const ir::AttrSpec& spec,
                                                  const std::string& what) {
  const bool lstm =
      op_.kind == ir::OpKind::kLstm || op_.kind == ir::OpKind::kLstmCell;
  // The specification's gate names, WebNN's letters.
  const std::vector<std::pair<std::string, char>> gates =
      lstm ? std::vector<std::pair<std::string, char>>{{"input", 'i'},
                                                       {"output", 'o'},
                                                       {"forget", 'f'},
                                                       {"cell", 'g'}}
           : std::vector<std::pair<std::string, char>>{
                 {"update", 'z'}, {"reset", 'r'}, {"gate", 'n'}, {"new", 'n'}};
  auto spelled = [&](char letter) {
    for (const auto& [name, l] : gates) {
      if (l == letter) return name;
    }
    return std::string(1, letter);
  };
  std::vector<std::string> accepted;
  for (const char* choice : spec.choices) {
    std::vector<std::string> names;
    for (const char* c = choice; *c != '\0'; ++c) names.push_back(spelled(*c));
    accepted.push_back(StrCat("[", absl::StrJoin(names, ", "), "]"));
  }
  std::string letters;
  for (const Value& item : v.items) {
    char letter = 0;
    for (const auto& [name, l] : gates) {
      if (item.is_name(name) || item.is_name(std::string(1, l))) letter = l;
    }
    if (letter == 0) {
      std::vector<std::string> names;
      for (const auto& gate : gates) names.push_back(gate.first);
      Fail(item.range,
           StrCat(what, " names the gates ", absl::StrJoin(names, ", "),
                  ", not ", Describe(item),
                  item.is_name() ? DidYouMean(item.text, names) : ""));
      return std::nullopt;
    }
    letters.push_back(letter);
  }
  for (const char* choice : spec.choices) {
    if (letters == choice) return letters;
  }
  Fail(v.range,
       StrCat(what, " must be ", absl::StrJoin(accepted, " or "), " (WebNN's ",
              absl::StrJoin(spec.choices, " and "), ")"));
  return std::nullopt;
}

std::optional<std::vector<int64_t>> AttrBinder::Ints(const Value& v,
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

std::optional<ir::AttrValue> AttrBinder::Convert(const model::Option& option,
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
      Fail(v.range, StrCat(what, " must be true or false, not ", Describe(v)));
      return std::nullopt;
    case AttrKind::kEnum: {
      std::optional<std::string> s =
          op_.category == ir::OpCategory::kRecurrent && v.is_list()
              ? GateLayout(v, spec, what)
              : Choice(v, spec, what);
      if (s) return *s;
      return std::nullopt;
    }
    case AttrKind::kDType:
      if (v.is_name() && ir::ParseDType(v.text)) return v.text;
      Fail(v.range,
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
      std::vector<Value> items = v.is_list() ? v.items : std::vector<Value>{v};
      for (const Value& item : items) {
        std::optional<double> d = Number(item, what);
        if (!d) return std::nullopt;
        out.push_back(*d);
      }
      return out;
    }
    case AttrKind::kEnums: {
      std::vector<std::string> out;
      std::vector<Value> items = v.is_list() ? v.items : std::vector<Value>{v};
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

void AttrBinder::ApplyDefaults() {
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
        out_.attrs.Set(spec.name,
                       std::vector<int64_t>(features.begin(), features.end()));
        break;
    }
  }
  // Image layouts follow the dimension names.
  for (const char* layout : {"inputLayout", "layout"}) {
    const ir::AttrSpec* spec = op_.FindAttr(layout);
    if (spec != nullptr && !out_.attrs.Has(layout) &&
        spec->choices.size() == 2 && std::string(spec->choices[0]) == "nchw") {
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

std::optional<BoundAttrs> BindAttrs(const model::Layer& layer,
                                    const ir::TensorType& input,
                                    Diagnostics& diagnostics) {
  return AttrBinder(layer, input, diagnostics).Run();
}

}  // namespace webnnm::dag
