#include "engine/interop/onnx_export.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "engine/base/source.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/interop/onnx_ops.h"
#include "engine/interop/onnx_writer.h"
#include "engine/train/feeder.h"
#include "engine/train/loss.h"
#include "engine/train/trainer.h"

namespace webnnm::interop {
namespace {

// The graph as inference runs it: dropout by its alias (ids kept: the
// DAG's endpoints name its nodes).
ir::Graph InferenceGraph(const dag::Dag& dag) {
  ir::Graph graph = dag.graph;
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (node.dead || node.inference_alias == ir::kNoValue) continue;
    graph.ReplaceUses(node.outputs[0], node.inference_alias);
  }
  return graph;
}

// The nodes the outputs need.
std::vector<bool> Needed(const ir::Graph& graph, const dag::Dag& dag) {
  std::vector<bool> needed(graph.num_nodes(), false);
  std::vector<ir::NodeId> stack;
  for (const dag::Endpoint& e : dag.outputs) stack.push_back(e.node);
  while (!stack.empty()) {
    const ir::NodeId id = stack.back();
    stack.pop_back();
    if (needed[id]) continue;
    needed[id] = true;
    for (ir::ValueId v : graph.node(id).operands) {
      if (v == ir::kNoValue) continue;
      const ir::NodeId p = graph.value(v).producer;
      if (!needed[p]) stack.push_back(p);
    }
  }
  return needed;
}

void SetType(onnx::ValueInfoProto& info, int elem,
             const std::vector<int64_t>& shape) {
  onnx::TypeProto_Tensor& t = *info.mutable_type()->mutable_tensor_type();
  t.set_elem_type(elem);
  onnx::TensorShapeProto& s = *t.mutable_shape();
  for (int64_t d : shape) {
    onnx::TensorShapeProto_Dimension& dim = *s.add_dim();
    if (d == ir::kBatchDim) {
      dim.set_dim_param("batch");
    } else if (d == ir::kSequenceDim) {
      dim.set_dim_param("sequence");
    } else {
      dim.set_dim_value(d);
    }
  }
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void Metadata(onnx::ModelProto& model, const std::string& key,
              const std::string& value) {
  onnx::StringStringEntryProto& e = *model.add_metadata_props();
  e.set_key(key);
  e.set_value(value);
}

class Exporter {
 public:
  Exporter(const dag::Dag& dag, const std::string& file,
           const std::string& source, const train::ModelSnapshot& snapshot)
      : dag_(dag),
        source_(file, source),
        snapshot_(snapshot),
        graph_(InferenceGraph(dag)),
        w_(graph_, *model_.mutable_graph()) {}

  absl::StatusOr<std::string> Run(const OnnxExportOptions& options);

 private:
  // "line 12 (dense)": where the user wrote a node.
  std::string Where(const ir::Node& node) const;
  absl::Status Inputs(const std::vector<bool>& needed);
  absl::Status Parameter(const ir::Node& node, ir::ValueId v);
  absl::Status Constant(const ir::Node& node, ir::ValueId v);
  absl::Status Outputs();
  // `x` of `type` imputed and standardized as the snapshot says (over
  // `steps` steps of a sequence when not 0), its padding past `lengths`
  // (when not "") zeroed.
  absl::StatusOr<std::string> Prepared(std::string x,
                                       const ir::TensorType& type,
                                       int64_t steps,
                                       const train::Standardization* s,
                                       const train::Imputation* impute,
                                       const std::string& lengths);
  // Whether a needed lstm or gru runs over symbolic steps.
  bool NeedsLengths(const std::vector<bool>& needed) const;

  const dag::Dag& dag_;
  SourceFile source_;
  const train::ModelSnapshot& snapshot_;
  ir::Graph graph_;
  onnx::ModelProto model_;
  OnnxWriter w_;
  std::set<std::string> output_names_;
};

std::string Exporter::Where(const ir::Node& node) const {
  std::string at;
  if (node.range.begin < source_.text().size()) {
    at = StrCat("line ", source_.Locate(node.range.begin).line);
  }
  if (node.layer >= 0 && node.layer < static_cast<int>(dag_.layers.size())) {
    at = StrCat(at, at.empty() ? "" : " ", "(layer ", node.layer + 1, ", ",
                dag_.layers[node.layer].op, ")");
  }
  return at.empty() ? std::string("the model") : at;
}

absl::StatusOr<std::string> Exporter::Prepared(std::string x,
                                               const ir::TensorType& type,
                                               int64_t steps,
                                               const train::Standardization* s,
                                               const train::Imputation* impute,
                                               const std::string& lengths) {
  std::vector<int64_t> dims = type.FeatureShape();
  if (steps > 0) dims.insert(dims.begin(), steps);
  int64_t width = 1;
  for (int64_t d : dims) width *= d;
  if (impute != nullptr && !impute->empty()) {
    if (static_cast<int64_t>(impute->values.size()) != width) {
      return absl::FailedPreconditionError(
          StrCat("the snapshot imputes ", impute->values.size(),
                 " features; the model's input takes ", width));
    }
    ASSIGN_OR_RETURN(std::string fill,
                     w_.Floats(impute->values, dims, ir::DType::kFloat32,
                               w_.Fresh("imputation")));
    x = w_.Op("Where", {w_.Op("IsNaN", {x}), fill, x});
  }
  if (s != nullptr && !s->empty()) {
    if (static_cast<int64_t>(s->mean.size()) != width) {
      return absl::FailedPreconditionError(
          StrCat("the snapshot standardizes ", s->mean.size(),
                 " features; the model's input takes ", width));
    }
    ASSIGN_OR_RETURN(
        std::string mean,
        w_.Floats(s->mean, dims, ir::DType::kFloat32, w_.Fresh("mean")));
    ASSIGN_OR_RETURN(
        std::string sd,
        w_.Floats(s->stddev, dims, ir::DType::kFloat32, w_.Fresh("stddev")));
    x = w_.Op("Div", {w_.Op("Sub", {x, mean}), sd});
  }
  if (!lengths.empty()) {
    // A ragged sequence's padding stays zero (as the daemon's data does):
    // steps at or past a sample's length multiplied by 0.
    std::vector<int64_t> index(steps);
    for (int64_t t = 0; t < steps; ++t) index[t] = t;
    const std::string real =
        w_.Op("Less", {w_.Int32s(index, "steps"),
                       w_.Op("Unsqueeze", {lengths, w_.Int64s({1}, "axes")})});
    std::vector<int64_t> shape(type.shape.size(), 1);
    shape[0] = 0;  // the batch, copied
    shape[1] = steps;
    x = w_.Op("Mul", {x, w_.Op("Reshape", {w_.Cast(real, ir::DType::kFloat32),
                                           w_.Int64s(shape)})});
  }
  if (type.dtype != ir::DType::kFloat32) x = w_.Cast(x, type.dtype);
  return x;
}

bool Exporter::NeedsLengths(const std::vector<bool>& needed) const {
  for (ir::NodeId id = 0; id < graph_.num_nodes(); ++id) {
    const ir::Node& node = graph_.node(id);
    if (!needed[id] || node.kind != ir::NodeKind::kOp) continue;
    if ((node.op->kind == ir::OpKind::kLstm ||
         node.op->kind == ir::OpKind::kGru) &&
        ir::IsSymbolic(graph_.value(node.operands[0]).type.shape[0])) {
      return true;
    }
  }
  return false;
}

absl::Status Exporter::Inputs(const std::vector<bool>& needed) {
  for (const dag::Endpoint& e : dag_.outputs) output_names_.insert(e.name);
  const bool lengths_needed = NeedsLengths(needed);
  std::string lengths;  // the lengths input, once added
  for (size_t k = 0; k < dag_.inputs.size(); ++k) {
    const dag::Endpoint& e = dag_.inputs[k];
    const ir::ValueId v = graph_.output(e.node);
    const ir::TensorType& type = graph_.value(v).type;
    const std::string name =
        output_names_.count(e.name) ? StrCat(e.name, "_input") : e.name;
    const train::Standardization* s = nullptr;
    const train::Imputation* impute = nullptr;
    if (k == 0) {
      s = &snapshot_.standardization;
      impute = &snapshot_.imputation;
    } else if (auto it = snapshot_.input_standardization.find(e.name);
               it != snapshot_.input_standardization.end()) {
      s = &it->second;
    }
    const bool standardized = s != nullptr && !s->empty();
    const bool prepared =
        standardized || (impute != nullptr && !impute->empty());
    // A sequence's lengths (the first sequenced input's, as a ragged
    // dataset has them) when a recurrent layer runs over symbolic steps.
    const auto at =
        std::find(type.shape.begin(), type.shape.end(), ir::kSequenceDim);
    const bool sequenced = at != type.shape.end();
    std::string mask;
    if (sequenced && lengths_needed && lengths.empty()) {
      lengths = StrCat(e.name, "_lengths");  // declared after the inputs
      w_.SetSequenceLengths(lengths);
      mask = lengths;
    }
    // Standardized a step at a time: the steps of its statistics (those
    // of the training data's length), which the file's input then has.
    std::vector<int64_t> shape = type.shape;
    int64_t steps = 0;
    if (sequenced && standardized) {
      int64_t width = 1;
      for (int64_t d : type.FeatureShape()) width *= d;
      if (at - type.shape.begin() != 1 ||
          s->mean.size() % static_cast<size_t>(width) != 0) {
        return absl::FailedPreconditionError(
            StrCat("input ", e.name, " is standardized over ", s->mean.size(),
                   " values, not whole steps of ", width));
      }
      steps = static_cast<int64_t>(s->mean.size()) / width;
      shape[1] = steps;
    }
    // Raw features come in as float32 when the model standardizes them.
    const ir::DType fed = prepared ? ir::DType::kFloat32 : type.dtype;
    ASSIGN_OR_RETURN(int elem, OnnxType(fed));
    onnx::ValueInfoProto& info = *model_.mutable_graph()->add_input();
    info.set_name(name);
    SetType(info, elem, shape);
    if (!prepared) {
      w_.Bind(v, name);
      continue;
    }
    ASSIGN_OR_RETURN(std::string x, Prepared(name, type, steps, s, impute,
                                             steps > 0 ? mask : ""));
    w_.Bind(v, x);
  }
  if (!lengths.empty()) {
    onnx::ValueInfoProto& info = *model_.mutable_graph()->add_input();
    info.set_name(lengths);
    SetType(info, onnx::TensorProto::INT32, {ir::kBatchDim});
  }
  return absl::OkStatus();
}

absl::Status Exporter::Parameter(const ir::Node& node, ir::ValueId v) {
  const train::Params& params = snapshot_.state.best.empty()
                                    ? snapshot_.state.params
                                    : snapshot_.state.best;
  auto it = params.find(node.name);
  const ir::TensorType& type = graph_.value(v).type;
  if (it == params.end()) {
    return absl::FailedPreconditionError(
        StrCat("the snapshot has no parameter ", node.name));
  }
  w_.Bind(v, node.name);
  return w_.Floats(it->second, type.shape, type.dtype, node.name).status();
}

absl::Status Exporter::Constant(const ir::Node& node, ir::ValueId v) {
  const ir::TensorType& type = graph_.value(v).type;
  return w_
      .Raw(node.data ? node.data->bytes : std::vector<uint8_t>(), type.shape,
           type.dtype, w_.Name(v))
      .status();
}

absl::Status Exporter::Outputs() {
  ASSIGN_OR_RETURN(std::vector<train::OutputSpec> specs,
                   train::OutputSpecs(dag_, snapshot_.state.hyper, nullptr));
  for (size_t k = 0; k < dag_.outputs.size(); ++k) {
    const dag::Endpoint& e = dag_.outputs[k];
    const ir::Node& out = graph_.node(e.node);
    const ir::ValueId v = out.operands[0];
    const ir::TensorType& type = graph_.value(v).type;
    std::string y = w_.Name(v);
    const train::OutputSpec* spec = nullptr;
    for (const train::OutputSpec& s : specs) {
      if (s.name == e.name) spec = &s;
    }
    auto back = snapshot_.target_standardization.find(e.name);
    if (back != snapshot_.target_standardization.end() &&
        !back->second.empty()) {  // to the targets' units
      const int64_t units = type.shape.back();
      std::vector<float> sd(units), mean(units);
      for (int64_t u = 0; u < units; ++u) {
        sd[u] = back->second.stddev[u % back->second.stddev.size()];
        mean[u] = back->second.mean[u % back->second.mean.size()];
      }
      ASSIGN_OR_RETURN(std::string s, w_.Floats(sd, {units}, type.dtype,
                                                w_.Fresh("target_stddev")));
      ASSIGN_OR_RETURN(std::string m, w_.Floats(mean, {units}, type.dtype,
                                                w_.Fresh("target_mean")));
      y = w_.Op("Add", {w_.Op("Mul", {y, s}), m});
    }
    const bool classification =
        spec != nullptr && train::IsClassification(spec->loss);
    const train::ClassRule rule =
        classification ? train::ClassRuleOf(dag_, *spec) : train::ClassRule{};
    std::vector<int64_t> shape = type.shape;
    if (classification && rule.units == 1) {
      // One unit: the two classes' probabilities, 1 - p and p, as predict
      // writes them.
      onnx::NodeProto& both = w_.Add(
          "Concat", {w_.Op("Sub", {w_.Scalar(1.0, type.dtype, "one"), y}), y},
          {e.name});
      SetInt(both, "axis", -1);
      shape.back() = 2;
    } else {
      w_.Add("Identity", {y}, {e.name});
    }
    onnx::ValueInfoProto& info = *model_.mutable_graph()->add_output();
    info.set_name(e.name);
    ASSIGN_OR_RETURN(int elem, OnnxType(type.dtype));
    SetType(info, elem, shape);
    if (!classification) continue;
    // The predicted class: the largest unit (the first of ties), or one
    // unit against the threshold.
    std::string index;
    if (rule.units == 1) {
      index =
          w_.Op("Squeeze",
                {w_.Op("GreaterOrEqual",
                       {y, w_.Scalar(rule.threshold, type.dtype, "threshold")}),
                 w_.Int64s({-1}, "axes")});
    } else {
      onnx::NodeProto& arg = w_.Add("ArgMax", {y});
      SetInt(arg, "axis", -1);
      SetInt(arg, "keepdims", 0);
      index = arg.output(0);
    }
    onnx::NodeProto& cast = w_.Add("Cast", {index}, {e.name + "_class"});
    SetInt(cast, "to", onnx::TensorProto::INT32);
    onnx::ValueInfoProto& cls = *model_.mutable_graph()->add_output();
    cls.set_name(e.name + "_class");
    SetType(cls, onnx::TensorProto::INT32,
            std::vector<int64_t>(type.shape.begin(), type.shape.end() - 1));
    std::vector<std::string> names;
    const int64_t n = std::max<int64_t>(2, rule.units);
    if (k == 0 && static_cast<int64_t>(snapshot_.classes.size()) == n) {
      names = snapshot_.classes;
    } else {
      for (int64_t c = 0; c < n; ++c) names.push_back(StrCat(c));
    }
    std::string json = "[";
    for (size_t c = 0; c < names.size(); ++c) {
      json += (c ? "," : "") + JsonString(names[c]);
    }
    Metadata(model_, "webnnm.classes." + e.name, json + "]");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Exporter::Run(const OnnxExportOptions& options) {
  if (absl::Status fits = train::CheckSnapshotFits(snapshot_, dag_);
      !fits.ok()) {
    return absl::FailedPreconditionError(fits.message());
  }
  model_.set_ir_version(8);
  model_.set_producer_name("webnnm");
  model_.set_producer_version(options.producer_version);
  model_.set_model_version(1);
  onnx::OperatorSetIdProto& opset = *model_.add_opset_import();
  opset.set_domain("");
  opset.set_version(17);
  model_.mutable_graph()->set_name(dag_.name.empty() ? "model" : dag_.name);
  ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, graph_.TopologicalOrder());
  const std::vector<bool> needed = Needed(graph_, dag_);
  // An operation without an ONNX form first: what the user must change.
  for (ir::NodeId id : order) {
    const ir::Node& node = graph_.node(id);
    if (needed[id] && node.kind == ir::NodeKind::kOp &&
        FindOnnxMapping(node.op->kind) == nullptr) {
      return absl::FailedPreconditionError(
          StrCat(Where(node), ": ", node.op->name,
                 " has no ONNX form in this export (opset 17); "
                 "docs/interop.md lists the operations that have one"));
    }
  }
  RETURN_IF_ERROR(Inputs(needed));
  for (ir::NodeId id : order) {
    const ir::Node& node = graph_.node(id);
    if (!needed[id]) continue;
    switch (node.kind) {
      case ir::NodeKind::kInput:
      case ir::NodeKind::kOutput:
        break;
      case ir::NodeKind::kParameter:
        RETURN_IF_ERROR(Parameter(node, node.outputs[0]));
        break;
      case ir::NodeKind::kConstant:
        RETURN_IF_ERROR(Constant(node, node.outputs[0]));
        break;
      case ir::NodeKind::kOp: {
        const OnnxMapping* m = FindOnnxMapping(node.op->kind);
        if (absl::Status s = m->emit(w_, node); !s.ok()) {
          return absl::FailedPreconditionError(
              StrCat(Where(node), ": ", node.op->name, ": ", s.message()));
        }
        break;
      }
    }
  }
  RETURN_IF_ERROR(Outputs());
  Metadata(model_, "webnnm.model", dag_.name);
  if (!snapshot_.label_column.empty()) {
    Metadata(model_, "webnnm.label", snapshot_.label_column);
  }
  std::string bytes;
  if (!model_.SerializeToString(&bytes)) {
    return absl::InternalError("the ONNX model did not serialize");
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::string> ExportOnnx(const dag::Dag& dag,
                                       const std::string& file,
                                       const std::string& source,
                                       const train::ModelSnapshot& snapshot,
                                       const OnnxExportOptions& options) {
  return Exporter(dag, file, source, snapshot).Run(options);
}

}  // namespace webnnm::interop
