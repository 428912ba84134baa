#include "engine/ir/tensor_type.h"

#include "absl/strings/str_join.h"
#include "engine/base/checked_math.h"
#include "engine/base/strings.h"

namespace webnnm::ir {

std::string DimToString(int64_t dim) {
  if (dim == kBatchDim) return "batch";
  if (dim == kSequenceDim) return "sequence";
  return std::to_string(dim);
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::vector<std::string> parts;
  for (int64_t d : shape) parts.push_back(DimToString(d));
  return StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::vector<int64_t> TensorType::FeatureShape() const {
  std::vector<int64_t> features;
  for (int64_t d : shape) {
    if (!IsSymbolic(d)) features.push_back(d);
  }
  return features;
}

std::vector<std::string> TensorType::FeatureNames() const {
  std::vector<std::string> features;
  if (!has_names()) return features;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!IsSymbolic(shape[i])) features.push_back(names[i]);
  }
  return features;
}

std::vector<int> TensorType::FeatureAxes() const {
  std::vector<int> axes;
  for (int i = 0; i < rank(); ++i) {
    if (!IsSymbolic(shape[i])) axes.push_back(i);
  }
  return axes;
}

std::optional<int64_t> TensorType::MinElementCount() const {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (IsSymbolic(d)) continue;
    auto next = CheckedMul(count, d);
    if (!next) return std::nullopt;
    count = *next;
  }
  return count;
}

int TensorType::ChannelAxis() const {
  if (channel_axis >= 0 && channel_axis < rank()) return channel_axis;
  if (has_names()) {
    int found = FindName("channels");
    if (found >= 0) return found;
  }
  // The last dimension that is not symbolic.
  for (int i = rank() - 1; i >= 0; --i) {
    if (!IsSymbolic(shape[i])) return i;
  }
  return rank() - 1;
}

int TensorType::FindName(std::string_view name) const {
  if (!has_names()) return -1;
  int found = -1;
  for (int i = 0; i < rank(); ++i) {
    if (names[i] == name) {
      if (found >= 0) return -2;
      found = i;
    }
  }
  return found;
}

std::string TensorType::ToString() const {
  if (!has_names()) return StrCat(DTypeName(dtype), " ", ShapeToString(shape));
  std::vector<std::string> parts;
  for (int i = 0; i < rank(); ++i) {
    if (IsSymbolic(shape[i])) {
      parts.push_back(names[i]);
    } else {
      parts.push_back(StrCat(names[i], ":", shape[i]));
    }
  }
  return StrCat(DTypeName(dtype), " {", absl::StrJoin(parts, ", "), "}");
}

}  // namespace webnnm::ir
