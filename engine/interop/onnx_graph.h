// A concrete graph (every size fixed, no parameters: a conformance case's)
// as an ONNX model of opset 17: its inputs and outputs by their names, its
// constants as initializers, its operations through the table of
// onnx_ops.h. What the ONNX conformance run of the WebNN vectors exports
// (tests/interop); models go through onnx_export.h.
#ifndef WEBNNM_ENGINE_INTEROP_ONNX_GRAPH_H_
#define WEBNNM_ENGINE_INTEROP_ONNX_GRAPH_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"

namespace webnnm::interop {

// The serialized ModelProto. FailedPrecondition naming the operation when
// one has no ONNX form (or an option none), or a type none.
absl::StatusOr<std::string> ExportGraphOnnx(const ir::Graph& graph,
                                            const std::string& name);

}  // namespace webnnm::interop

#endif  // WEBNNM_ENGINE_INTEROP_ONNX_GRAPH_H_
