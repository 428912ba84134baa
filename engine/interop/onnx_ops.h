// The ONNX form of each WebNN operation: one table (onnx_ops.cc), the way
// ir/op_list.def is the one list of operations. An entry writes the
// operation's ONNX nodes (opset 17, the default domain) through an
// OnnxWriter; an operation without an entry has no ONNX form here and
// its export is refused naming it (onnx_export.h).
#ifndef WEBNNM_ENGINE_INTEROP_ONNX_OPS_H_
#define WEBNNM_ENGINE_INTEROP_ONNX_OPS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/interop/onnx_writer.h"
#include "engine/ir/op_def.h"

namespace webnnm::interop {

// Writes `node` (an operation) as ONNX nodes whose results carry the
// names of its outputs. InvalidArgument for options ONNX cannot express,
// saying which.
using OnnxEmitter = absl::Status (*)(OnnxWriter& w, const ir::Node& node);

struct OnnxMapping {
  ir::OpKind kind;
  OnnxEmitter emit;
  // The ONNX operators it becomes, for docs/interop.md's table.
  const char* onnx;
};

// The entry of an operation, or nullptr when it has no ONNX form.
const OnnxMapping* FindOnnxMapping(ir::OpKind kind);
// Every entry, in the op list's order.
const std::vector<OnnxMapping>& OnnxMappings();

}  // namespace webnnm::interop

#endif  // WEBNNM_ENGINE_INTEROP_ONNX_OPS_H_
