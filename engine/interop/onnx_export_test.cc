// The ONNX export's structure and refusals (its numbers against predict
// run in ONNX Runtime: tests/interop).
#include "engine/interop/onnx_export.h"

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/check.h"
#include "engine/interop/onnx_ops.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"

namespace webnnm::interop {
namespace {

using ::testing::HasSubstr;

std::string ReadModel(const std::string& name) {
  std::ifstream in(std::string(WEBNNM_SOURCE_DIR) + "/configs/models/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A snapshot of the model's parameters, each value small and distinct.
train::ModelSnapshot SnapshotOf(const dag::Dag& dag) {
  train::ModelSnapshot s;
  s.shapes = train::ParameterShapes(dag);
  for (const auto& [name, shape] : s.shapes) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float>& v = s.state.params[name];
    for (int64_t i = 0; i < n; ++i)
      v.push_back(0.01f * static_cast<float>(i % 7));
  }
  s.state.best = s.state.params;
  return s;
}

struct Exported {
  onnx::ModelProto model;
  absl::Status status;
};

Exported Export(
    const std::string& file, const std::string& text,
    const std::function<void(train::ModelSnapshot&)>& change = nullptr) {
  CheckResult check = CheckModel(file, text);
  EXPECT_TRUE(check.ok) << check.rendered;
  Exported e;
  if (!check.ok) return e;
  train::ModelSnapshot snapshot = SnapshotOf(*check.dag);
  if (change) change(snapshot);
  absl::StatusOr<std::string> bytes =
      ExportOnnx(*check.dag, file, text, snapshot, {.producer_version = "t"});
  e.status = bytes.status();
  if (bytes.ok()) {
    EXPECT_TRUE(e.model.ParseFromString(*bytes));
  }
  return e;
}

std::vector<std::string> OpTypes(const onnx::ModelProto& m) {
  std::vector<std::string> ops;
  for (const onnx::NodeProto& n : m.graph().node()) ops.push_back(n.op_type());
  return ops;
}

TEST(OnnxExport, IrisIsAValidModelNamedAsDocumented) {
  Exported e = Export("iris.wnm", ReadModel("iris.wnm"), [](auto& s) {
    s.classes = {"setosa", "versicolor", "virginica"};
    s.label_column = "species";
  });
  ASSERT_TRUE(e.status.ok()) << e.status;
  EXPECT_NO_THROW(onnx::checker::check_model(e.model));
  EXPECT_EQ(e.model.opset_import(0).version(), 17);
  const onnx::GraphProto& g = e.model.graph();
  ASSERT_EQ(g.input_size(), 1);
  // The input's block is also the output's: the input takes a suffix.
  EXPECT_EQ(g.input(0).name(), "model_input");
  const auto& dims = g.input(0).type().tensor_type().shape().dim();
  ASSERT_EQ(dims.size(), 2);
  EXPECT_EQ(dims[0].dim_param(), "batch");
  EXPECT_EQ(dims[1].dim_value(), 4);
  ASSERT_EQ(g.output_size(), 2);
  EXPECT_EQ(g.output(0).name(), "model");
  EXPECT_EQ(g.output(1).name(), "model_class");
  EXPECT_EQ(g.output(1).type().tensor_type().elem_type(),
            onnx::TensorProto::INT32);
  EXPECT_THAT(OpTypes(e.model), testing::IsSupersetOf({"MatMul", "Add", "Relu",
                                                       "Softmax", "ArgMax"}));
  std::map<std::string, std::string> meta;
  for (const auto& p : e.model.metadata_props()) meta[p.key()] = p.value();
  EXPECT_EQ(meta["webnnm.classes.model"],
            "[\"setosa\",\"versicolor\",\"virginica\"]");
  EXPECT_EQ(meta["webnnm.label"], "species");
  // The parameters are initializers under their own names.
  std::set<std::string> initializers;
  for (const auto& t : e.model.graph().initializer()) {
    initializers.insert(t.name());
  }
  EXPECT_TRUE(initializers.count("w1") && initializers.count("b2"));
}

TEST(OnnxExport, ImputationAndStandardizationComeFirst) {
  Exported e = Export("iris.wnm", ReadModel("iris.wnm"), [](auto& s) {
    s.standardization = {.mean = {1, 2, 3, 4}, .stddev = {1, 1, 2, 2}};
    s.imputation = {.mode = train::ImputeMode::kMean, .values = {1, 2, 3, 4}};
  });
  ASSERT_TRUE(e.status.ok()) << e.status;
  EXPECT_NO_THROW(onnx::checker::check_model(e.model));
  const std::vector<std::string> ops = OpTypes(e.model);
  ASSERT_GE(ops.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(ops.begin(), ops.begin() + 4),
            (std::vector<std::string>{"IsNaN", "Where", "Sub", "Div"}));
}

TEST(OnnxExport, AStandardizationOfAnotherWidthIsRefused) {
  Exported e = Export("iris.wnm", ReadModel("iris.wnm"), [](auto& s) {
    s.standardization = {.mean = {1, 2}, .stddev = {1, 1}};
  });
  EXPECT_EQ(e.status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(e.status.message(), HasSubstr("standardizes 2 features"));
}

TEST(OnnxExport, TheShippedCnnExports) {
  Exported e = Export("fashion-cnn.wnm", ReadModel("fashion-cnn.wnm"));
  ASSERT_TRUE(e.status.ok()) << e.status;
  EXPECT_NO_THROW(onnx::checker::check_model(e.model));
  EXPECT_THAT(OpTypes(e.model),
              testing::IsSupersetOf({"Conv", "MaxPool", "Reshape"}));
}

TEST(OnnxExport, LazyCastsExportAsCastsThroughFloat16) {
  // The specification's inference example: int32 in, float16 inside,
  // float32 out; no parameters.
  Exported e = Export("inference.wnm", ReadModel("inference.wnm"));
  ASSERT_TRUE(e.status.ok()) << e.status;
  EXPECT_NO_THROW(onnx::checker::check_model(e.model));
  EXPECT_EQ(e.model.graph().input(0).type().tensor_type().elem_type(),
            onnx::TensorProto::INT32);
  bool to_half = false;
  for (const onnx::NodeProto& n : e.model.graph().node()) {
    for (const onnx::AttributeProto& a : n.attribute()) {
      to_half |= n.op_type() == "Cast" && a.name() == "to" &&
                 a.i() == onnx::TensorProto::FLOAT16;
    }
  }
  EXPECT_TRUE(to_half);
}

TEST(OnnxExport, AnOperationWithoutAnOnnxFormIsRefusedWithItsLine) {
  // A normalization over its axes in another order than the tensor's.
  const std::string text =
      "model:input shape={channels: 2, height: 4, width: 4};\n"
      "model:output shape=[10];\n"
      "model:layers\n"
      "    layerNormalization(axes=[width, height]),\n"
      "    reshape(newShape=[32]),\n"
      "    dense(shape=[10], activation=softmax);\n"
      "dense:layers matmul(w), add(b), activation();\n";
  Exported e = Export("reordered.wnm", text);
  EXPECT_EQ(e.status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(e.status.message(), HasSubstr("layerNormalization"));
  EXPECT_THAT(e.status.message(), HasSubstr("has no ONNX form"));
  EXPECT_THAT(e.status.message(), HasSubstr("line 4"));
}

TEST(OnnxExport, RecurrentLayersAreOnnxsWithTheLengthsOfTheirSequence) {
  // Symbolic steps: the file takes the sequences' lengths.
  Exported ragged = Export("ragged-lstm.wnm", ReadModel("ragged-lstm.wnm"));
  ASSERT_TRUE(ragged.status.ok()) << ragged.status;
  EXPECT_NO_THROW(onnx::checker::check_model(ragged.model));
  const onnx::GraphProto& g = ragged.model.graph();
  ASSERT_EQ(g.input_size(), 2);
  EXPECT_EQ(g.input(1).name(), "model_lengths");
  EXPECT_EQ(g.input(1).type().tensor_type().elem_type(),
            onnx::TensorProto::INT32);
  bool lstm = false;
  for (const onnx::NodeProto& n : g.node()) {
    if (n.op_type() != "LSTM") continue;
    lstm = true;
    ASSERT_GE(n.input_size(), 5);
    EXPECT_EQ(n.input(4), "model_lengths");
  }
  EXPECT_TRUE(lstm);
  // A GRU resets after its product, as WebNN's.
  Exported gru = Export("fashion-gru.wnm", ReadModel("fashion-gru.wnm"));
  ASSERT_TRUE(gru.status.ok()) << gru.status;
  EXPECT_NO_THROW(onnx::checker::check_model(gru.model));
  for (const onnx::NodeProto& n : gru.model.graph().node()) {
    if (n.op_type() != "GRU") continue;
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.name() == "linear_before_reset") EXPECT_EQ(a.i(), 1);
    }
  }
}

TEST(OnnxExport, TheTableHasOneEntryAnOperation) {
  std::set<ir::OpKind> kinds;
  for (const OnnxMapping& m : OnnxMappings()) {
    EXPECT_NE(m.emit, nullptr);
    EXPECT_TRUE(kinds.insert(m.kind).second)
        << "twice: " << static_cast<int>(m.kind);
    EXPECT_EQ(FindOnnxMapping(m.kind), &m);
  }
  EXPECT_EQ(FindOnnxMapping(ir::OpKind::kQuantizeLinear), nullptr);
}

TEST(OnnxExport, TheDocsListTheTableAsItIs) {
  std::ifstream in(std::string(WEBNNM_SOURCE_DIR) + "/docs/interop.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string doc = s.str();
  const size_t refused_at = doc.find("\nRefused: ");
  ASSERT_NE(refused_at, std::string::npos);
  EXPECT_EQ(doc.find("\nRefused: ", refused_at + 1), std::string::npos);
  const std::string refused =
      doc.substr(refused_at, doc.find('\n', refused_at + 1) - refused_at);
  for (int k = 0; k < static_cast<int>(ir::OpKind::kCount); ++k) {
    const auto kind = static_cast<ir::OpKind>(k);
    const std::string name = std::string("`") + ir::GetOp(kind).name + "`";
    if (const OnnxMapping* m = FindOnnxMapping(kind)) {
      EXPECT_THAT(doc, HasSubstr("| " + name + " | " + m->onnx + " |\n"));
      EXPECT_THAT(refused, testing::Not(HasSubstr(name)));
    } else {
      EXPECT_THAT(refused, HasSubstr(name));
    }
  }
}

}  // namespace
}  // namespace webnnm::interop
