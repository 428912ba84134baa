// OnnxWriter: what the ONNX exporter's operator table writes through — one
// ONNX GraphProto being filled, the ONNX name of each DAG value, fresh
// names for the values an operator's mapping adds, and initializers for
// the shape-like operands (constants, never computed at run time).
//
// Names: a DAG value gets "%<id>" (as the DAG dump writes it) unless it was
// bound to another name (the model's inputs and outputs); fresh names are
// "<hint>#<n>", unique in the graph. Every method returning a name has added
// what the name refers to.
#ifndef WEBNNM_ENGINE_INTEROP_ONNX_WRITER_H_
#define WEBNNM_ENGINE_INTEROP_ONNX_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace webnnm::interop {

// The ONNX element type of a WebNN data type; InvalidArgument for int4 and
// uint4 (ONNX has them only from opset 21).
absl::StatusOr<int> OnnxType(ir::DType dtype);

class OnnxWriter {
 public:
  OnnxWriter(const ir::Graph& graph, onnx::GraphProto& proto)
      : graph_(graph), proto_(proto) {}

  const ir::Graph& graph() const { return graph_; }
  const ir::TensorType& type(ir::ValueId v) const {
    return graph_.value(v).type;
  }

  // The ONNX name of a DAG value; Bind gives it one of the user's.
  std::string Name(ir::ValueId v) const;
  void Bind(ir::ValueId v, std::string name) { bound_[v] = std::move(name); }
  // Operand `slot` of an operation node ("" when absent), its output `i`.
  std::string In(const ir::Node& node, size_t slot) const;
  std::string Out(const ir::Node& node, size_t i = 0) const;
  bool Has(const ir::Node& node, size_t slot) const {
    return slot < node.operands.size() && node.operands[slot] != ir::kNoValue;
  }
  const ir::TensorType& InType(const ir::Node& node, size_t slot) const {
    return type(node.operands[slot]);
  }
  const ir::TensorType& OutType(const ir::Node& node, size_t i = 0) const {
    return type(node.outputs[i]);
  }

  std::string Fresh(std::string_view hint);
  // The graph input of a sequence's real lengths (int32 [batch]) that
  // recurrent layers over symbolic steps read ("" when there is none).
  const std::string& sequence_lengths() const { return lengths_; }
  void SetSequenceLengths(std::string name) { lengths_ = std::move(name); }
  // Adds a node; `outputs` empty: one fresh output. Returns the node, whose
  // output(0) is its first output's name.
  onnx::NodeProto& Add(std::string_view op_type,
                       std::vector<std::string> inputs,
                       std::vector<std::string> outputs = {});
  // Adds a node of one output and returns that output's name.
  std::string Op(std::string_view op_type, std::vector<std::string> inputs) {
    return Add(op_type, std::move(inputs)).output(0);
  }

  // Initializers: a vector of int64 or int32 (`dims` empty: 1-D, a scalar
  // when `scalar`), a scalar of a data type, float values of a data type
  // (float16 converted), and raw little-endian bytes.
  std::string Int64s(const std::vector<int64_t>& values,
                     std::string_view hint = "shape");
  std::string Int32s(const std::vector<int64_t>& values,
                     std::string_view hint = "index");
  std::string Int64Scalar(int64_t value, std::string_view hint = "k");
  std::string Scalar(double value, ir::DType dtype,
                     std::string_view hint = "c");
  absl::StatusOr<std::string> Floats(const std::vector<float>& values,
                                     const std::vector<int64_t>& dims,
                                     ir::DType dtype, std::string name);
  absl::StatusOr<std::string> Raw(const std::vector<uint8_t>& bytes,
                                  const std::vector<int64_t>& dims,
                                  ir::DType dtype, std::string name);

  // A Cast node to `dtype`; ONNX's bool (for the uint8 truth values of
  // WebNN) when `to_bool`.
  std::string Cast(const std::string& x, ir::DType dtype);
  std::string CastToBool(const std::string& x);

 private:
  const ir::Graph& graph_;
  onnx::GraphProto& proto_;
  std::map<ir::ValueId, std::string> bound_;
  std::map<std::string, int> counters_;
  std::string lengths_;
};

// Attributes of a NodeProto.
void SetInt(onnx::NodeProto& node, const char* name, int64_t value);
void SetFloat(onnx::NodeProto& node, const char* name, double value);
void SetInts(onnx::NodeProto& node, const char* name,
             const std::vector<int64_t>& values);
void SetString(onnx::NodeProto& node, const char* name,
               const std::string& value);

}  // namespace webnnm::interop

#endif  // WEBNNM_ENGINE_INTEROP_ONNX_WRITER_H_
