// Tensor types: data type, shape and dimension names.
//
// In the symbolic DAG the batch and sequence dimensions have no size yet:
// they are stored as the negative sentinels kBatchDim and kSequenceDim and
// replaced by concrete sizes when a graph is lowered for a batch size. All
// other sizes are positive. `names` parallels `shape` in the DAG (the layout:
// "batch", "channels", "height", ...) and is empty in graphs built without
// names, such as conformance graphs. Shape rules treat a symbolic dimension
// as an unknown but fixed size: it matches only itself, broadcasts with 1,
// and is rejected where an operation needs its value.
#ifndef WEBNNM_ENGINE_IR_TENSOR_TYPE_H_
#define WEBNNM_ENGINE_IR_TENSOR_TYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/dtype.h"

namespace webnnm::ir {

inline constexpr int64_t kBatchDim = -1;
inline constexpr int64_t kSequenceDim = -2;

inline bool IsSymbolic(int64_t dim) {
  return dim == kBatchDim || dim == kSequenceDim;
}

// "batch", "sequence" or the decimal size.
std::string DimToString(int64_t dim);
// "[batch, 3, 28, 28]"
std::string ShapeToString(const std::vector<int64_t>& shape);

struct TensorType {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape = {};
  std::vector<std::string> names = {};  // empty, or one name per dimension
  // The channel axis that per-channel parameters follow (ERRATA 10c);
  // -1 means "the dimension named 'channels', else the last one".
  int channel_axis = -1;

  int rank() const { return static_cast<int>(shape.size()); }
  bool has_names() const {
    return names.size() == shape.size() && !shape.empty();
  }
  // Shape with symbolic dimensions removed (what a model declares).
  std::vector<int64_t> FeatureShape() const;
  std::vector<std::string> FeatureNames() const;
  // Indices of the non-symbolic dimensions.
  std::vector<int> FeatureAxes() const;
  // Number of elements counting each symbolic dimension as 1, or nullopt on
  // overflow.
  std::optional<int64_t> MinElementCount() const;
  // The axis per-channel parameters follow (see channel_axis).
  int ChannelAxis() const;
  // Index of the dimension called `name`, -1 when absent, -2 when ambiguous.
  int FindName(std::string_view name) const;

  // "float32 [batch, 128]" and, with names, "float32 {batch, features:128}".
  std::string ToString() const;
  bool SameShapeAndType(const TensorType& other) const {
    return dtype == other.dtype && shape == other.shape;
  }
};

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_TENSOR_TYPE_H_
