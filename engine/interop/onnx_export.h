// ONNX export: a trained model as an ONNX file (opset 17) that ONNX
// Runtime and other ONNX tools run as `predict` does (docs/interop.md).
//
// The file takes raw features: the snapshot's imputation (missing values,
// NaN, filled) and standardization are graph nodes before the model, and
// regression outputs come back in the targets' units. Inputs are named by
// their blocks (`<block>_input` where an output has the block's name);
// each output is `<block>` (probabilities or values, as predict's: one
// sigmoid unit as the two classes' 1 - p and p) and,
// for a classification output, `<block>_class` (int32, the predicted
// class's index, per predict's rule); class names, the label column and
// the model's name travel in metadata_props ("webnnm.classes.<block>" a
// JSON array, "webnnm.label", "webnnm.model"). The batch dimension (and a
// sequence's) is symbolic ("batch", "sequence"); shape-like operands are
// initializers; the parameters are the snapshot's best.
//
// Errors: FailedPrecondition naming the operation, its line and layer
// when an operation has no ONNX form here (onnx_ops.h lists those that
// have one), or the snapshot does not fit the model.
#ifndef WEBNNM_ENGINE_INTEROP_ONNX_EXPORT_H_
#define WEBNNM_ENGINE_INTEROP_ONNX_EXPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/train/checkpoint.h"

namespace webnnm::interop {

struct OnnxExportOptions {
  std::string producer_version;  // the model's producer_version
};

// The serialized ONNX ModelProto. `source` is the model's text (for the
// lines of errors), `file` its name.
absl::StatusOr<std::string> ExportOnnx(const dag::Dag& dag,
                                       const std::string& file,
                                       const std::string& source,
                                       const train::ModelSnapshot& snapshot,
                                       const OnnxExportOptions& options = {});

}  // namespace webnnm::interop

#endif  // WEBNNM_ENGINE_INTEROP_ONNX_EXPORT_H_
