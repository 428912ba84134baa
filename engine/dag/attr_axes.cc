// Named axes: a dimension name or a feature index, resolved to a runtime
// axis through the input's layout.
#include "engine/base/strings.h"
#include "engine/base/suggest.h"
#include "engine/dag/attr_binder.h"

namespace webnnm::dag {

std::optional<int64_t> AttrBinder::Axis(const Value& v, bool allow_symbolic,
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
      Fail(v.range, StrCat(what, ": feature axis ", v.integer,
                           " is out of range for the input ", Layout(input_)));
      return std::nullopt;
    }
    return features[i];
  }
  Fail(v.range,
       StrCat(what, " must be a dimension name or index, not ", Describe(v)));
  return std::nullopt;
}

std::optional<std::vector<int64_t>> AttrBinder::Axes(const Value& v,
                                                     bool allow_symbolic,
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

std::optional<std::vector<int64_t>> AttrBinder::Permutation(
    const Value& v, const std::string& what) {
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
                         " feature dimensions of ", Layout(input_), " (or all ",
                         input_.rank(), " dimensions)"));
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

}  // namespace webnnm::dag
