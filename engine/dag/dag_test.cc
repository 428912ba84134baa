// The DAG builder: types, casts, named axes, parameter shapes, pins,
// decomposition, culling, initialisation, and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/testing/check_test_util.h"

namespace webnnm::dag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using webnnm::testing::Check;
using webnnm::testing::CountOps;
using webnnm::testing::Errors;
using webnnm::testing::FindOp;
using webnnm::testing::TypeOf;
using webnnm::testing::Warnings;

std::string Model(const std::string& input, const std::string& output,
                  const std::string& layers, const std::string& more = "") {
  return "model:input " + input + ";\nmodel:output " + output +
         ";\nmodel:layers " + layers + ";\n" + more;
}

const ir::TensorType& ParameterType(const CheckResult& r,
                                    const std::string& name) {
  for (ir::NodeId id : r.dag->parameters) {
    if (r.dag->graph.node(id).name == name) return TypeOf(*r.dag, id);
  }
  static ir::TensorType none;
  return none;
}

ir::Init ParameterInit(const CheckResult& r, const std::string& name) {
  for (ir::NodeId id : r.dag->parameters) {
    if (r.dag->graph.node(id).name == name) {
      return r.dag->graph.node(id).parameter.init;
    }
  }
  return ir::Init::kZeros;
}

TEST(Dag, InputsAndOutputsCarryTheLayout) {
  CheckResult r =
      Check(Model("shape={sequence, f:3}", "shape={sequence, g:3}", "relu()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  const ir::TensorType& in = TypeOf(*r.dag, r.dag->inputs[0].node);
  EXPECT_THAT(in.shape, ElementsAre(ir::kBatchDim, ir::kSequenceDim, 3));
  EXPECT_THAT(in.names, ElementsAre("batch", "sequence", "f"));
  const ir::TensorType& out = TypeOf(*r.dag, r.dag->outputs[0].node);
  EXPECT_THAT(out.names, ElementsAre("batch", "sequence", "g"));
}

TEST(Dag, DefaultDimensionNames) {
  CheckResult r =
      Check(Model("shape=[2, 3]", "shape=[6]", "reshape(newShape=[6])"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_THAT(r.summary->inputs[0].dims, ElementsAre("features0", "features1"));
  EXPECT_THAT(r.summary->outputs[0].dims, ElementsAre("labels"));
}

TEST(Dag, LazyUpCastingInsertsCasts) {
  CheckResult r =
      Check(Model("int8 shape=[2]", "shape=[2]", "add(3), mul(0.5), relu()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  // add(3) stays int8; mul(0.5) needs a float: int8 -> float32.
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kAdd)).dtype,
            ir::DType::kInt8);
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kMul)).dtype,
            ir::DType::kFloat32);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kCast), 1);
}

TEST(Dag, OperandsMeetAtTheMorePreciseType) {
  CheckResult r = Check("other:input float32 shape=[2];\n" +
                        Model("float16 shape=[2]", "shape=[2]", "add(other)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  ir::NodeId add = FindOp(*r.dag, ir::OpKind::kAdd);
  EXPECT_EQ(TypeOf(*r.dag, add).dtype, ir::DType::kFloat32);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kCast), 1);
}

TEST(Dag, ExplicitDataTypeMayLowerPrecision) {
  CheckResult r =
      Check(Model("shape=[2]", "float16 shape=[2]", "relu(dataType=float16)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kRelu)).dtype,
            ir::DType::kFloat16);
}

// The specification: float16 data is cast to float32 for softmax,
// normalizations, exp and log unless the layer says dataType=float16; the
// result goes back to float16 for the layers after it.
TEST(Dag, OperationsThatOverflowFloat16ComputeInFloat32) {
  CheckResult r = Check(
      Model("float16 shape=[3]", "float16 shape=[3]", "exp(), softmax()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  for (ir::OpKind kind : {ir::OpKind::kExp, ir::OpKind::kSoftmax}) {
    EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, kind)).dtype, ir::DType::kFloat32);
  }
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kCast), 4);  // up and back, twice
  ASSERT_EQ(r.dag->widened.size(), 2u);
  EXPECT_EQ(r.dag->widened[0].op, "exp");
  EXPECT_EQ(r.dag->widened[1].op, "softmax");
  EXPECT_EQ(r.dag->widened[1].line, 3);
  // Asked for float16: kept, and not widened; float32 data: nothing to do.
  r = Check(Model("float16 shape=[3]", "float16 shape=[3]",
                  "softmax(dataType=float16)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kSoftmax)).dtype,
            ir::DType::kFloat16);
  EXPECT_THAT(r.dag->widened, IsEmpty());
  r = Check(Model("shape=[3]", "shape=[3]", "softmax()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_THAT(r.dag->widened, IsEmpty());
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kCast), 0);
  // A relu stays float16.
  r = Check(Model("float16 shape=[3]", "float16 shape=[3]", "relu()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kRelu)).dtype,
            ir::DType::kFloat16);
  EXPECT_THAT(r.dag->widened, IsEmpty());
}

TEST(Dag, NeverCastsDownImplicitly) {
  CheckResult r = Check(Model("shape=[2]", "float16 shape=[2]", "relu()"));
  EXPECT_THAT(Errors(r), ElementsAre(HasSubstr("never lowers precision")));
  r = Check(Model("shape=[2]", "uint8 shape=[2]", "logicalNot()"));
  EXPECT_THAT(Errors(r), ElementsAre(HasSubstr("logicalNot takes uint8")));
}

TEST(Dag, IntegersGoToFloat32ForFloatOperations) {
  CheckResult r = Check(Model("int32 shape=[2]", "shape=[2]", "exp()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kExp)).dtype,
            ir::DType::kFloat32);
}

TEST(Dag, LiteralsMustFitTheirType) {
  CheckResult r = Check(Model("uint8 shape=[2]", "shape=[2]", "add(256)"));
  EXPECT_THAT(Errors(r), ElementsAre("3:18: 256 is out of the range of "
                                     "uint8 [0, 255]"));
}

TEST(Dag, ResolvesNamedAxes) {
  CheckResult r = Check(Model("shape={c:3, h:4, w:5}", "shape={c:3, w:5}",
                              "softmax(axis=h), reduceMean(axes=[h])"));
  ASSERT_TRUE(r.ok) << r.rendered;
  const ir::Node& softmax =
      r.dag->graph.node(FindOp(*r.dag, ir::OpKind::kSoftmax));
  EXPECT_EQ(softmax.attrs.GetInt("axis", -1), 2);
  const ir::Node& mean =
      r.dag->graph.node(FindOp(*r.dag, ir::OpKind::kReduceMean));
  EXPECT_THAT(mean.attrs.GetInts("axes", {}), ElementsAre(2));
}

TEST(Dag, IntegerAxesCountFeatures) {
  CheckResult r = Check(Model("shape={sequence, f:3, g:4}",
                              "shape={sequence, f:3}", "reduceSum(axes=[-1])"));
  ASSERT_TRUE(r.ok) << r.rendered;
  const ir::Node& sum =
      r.dag->graph.node(FindOp(*r.dag, ir::OpKind::kReduceSum));
  EXPECT_THAT(sum.attrs.GetInts("axes", {}), ElementsAre(3));
}

TEST(Dag, FeatureDefaultsSkipBatchAndSequence) {
  CheckResult r = Check(Model("shape={sequence, a:2, b:3}", "shape={sequence}",
                              "reduceSum(), reshape(newShape=[])", ""));
  // reduceSum() reduces a and b only.
  ASSERT_TRUE(r.ok) << r.rendered;
  const ir::Node& sum =
      r.dag->graph.node(FindOp(*r.dag, ir::OpKind::kReduceSum));
  EXPECT_THAT(sum.attrs.GetInts("axes", {}), ElementsAre(2, 3));
}

TEST(Dag, ReportsUnknownAndReservedAxes) {
  EXPECT_THAT(
      Errors(Check(Model("shape={a:2}", "shape={a:2}", "softmax(axis=b)"))),
      ElementsAre(HasSubstr("'b' is not a dimension of the input "
                            "{batch, a:2}")));
  EXPECT_THAT(
      Errors(Check(Model("shape={a:2}", "shape={a:2}", "softmax(axis=batch)"))),
      ElementsAre(HasSubstr("the batch dimension cannot be used")));
  EXPECT_THAT(
      Errors(Check(Model("shape={a:2}", "shape={a:2}", "softmax(axis=3)"))),
      ElementsAre(HasSubstr("feature axis 3 is out of range")));
}

TEST(Dag, InfersDenseParameterShapesFromTheDeclaredShape) {
  CheckResult r = Check(Model("shape=[5]", "shape=[2]",
                              "matmul(w), add(b), relu(shape=[3]), matmul(v)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  // relu's shape [3] reaches back through add to the first matmul; the
  // output's [2] gives the last.
  EXPECT_THAT(ParameterType(r, "w1").shape, ElementsAre(5, 3));
  EXPECT_THAT(ParameterType(r, "b1").shape, ElementsAre(3));
  EXPECT_THAT(ParameterType(r, "v1").shape, ElementsAre(3, 2));
  EXPECT_EQ(ParameterInit(r, "w1"), ir::Init::kHe);
  EXPECT_EQ(ParameterInit(r, "v1"), ir::Init::kGlorot);
  EXPECT_EQ(ParameterInit(r, "b1"), ir::Init::kZeros);
}

TEST(Dag, PerChannelBiases) {
  CheckResult r =
      Check(Model("shape={channels:3, height:4, width:4}",
                  "shape={channels:3, height:4, width:4}", "add(b), mul(s)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_THAT(ParameterType(r, "b1").shape, ElementsAre(3, 1, 1));
  EXPECT_EQ(ParameterInit(r, "s1"), ir::Init::kOnes);
  r = Check(Model("shape={height:4, width:4, channels:3}",
                  "shape={height:4, width:4, channels:3}", "add(b)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_THAT(ParameterType(r, "b1").shape, ElementsAre(3));
}

TEST(Dag, InfersConvolutionFilters) {
  CheckResult r =
      Check(Model("shape={channels:2, height:10, width:10}",
                  "shape={channels:4, height:5, width:5}",
                  "conv2d(f, padding={height:1, width:1}, strides=[2, 2], "
                  "shape={channels:4, height:5, width:5})"));
  ASSERT_TRUE(r.ok) << r.rendered;
  // floor((10 + 2 - k) / 2) + 1 = 5: k = 3 or 4; the smaller is taken.
  EXPECT_THAT(ParameterType(r, "f1").shape, ElementsAre(4, 2, 3, 3));
}

TEST(Dag, AsksForAShapeWhenItCannotInfer) {
  CheckResult r = Check(
      Model("shape=[5]", "shape=[2]", "matmul(w), maxPool2d(), matmul(v)"));
  ASSERT_FALSE(r.ok);
  EXPECT_THAT(Errors(r)[0], HasSubstr("cannot infer the shape of parameter "
                                      "'w1' of matmul"));
  EXPECT_THAT(Errors(r)[0], HasSubstr("give this layer"));
}

TEST(Dag, ChecksDeclaredShapes) {
  EXPECT_THAT(Errors(Check(Model("shape=[4]", "shape=[4]", "relu(shape=[3])"))),
              ElementsAre("3:25: relu gives [4] but shape= declares [3]"));
  EXPECT_THAT(Errors(Check(Model("shape=[4]", "shape=[3]", "relu()"))),
              ElementsAre(HasSubstr("declares [3] but the last layer gives "
                                    "[4]")));
}

TEST(Dag, NamedShapesRenameTheResult) {
  CheckResult r = Check(
      Model("shape=[4]", "shape={out:4}", "relu(shape={hidden:4}), tanh()"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(TypeOf(*r.dag, FindOp(*r.dag, ir::OpKind::kRelu)).names[1],
            "hidden");
  EXPECT_EQ(TypeOf(*r.dag, r.dag->outputs[0].node).names[1], "out");
}

TEST(Dag, ReportsRuleErrorsAtTheOption) {
  CheckResult r = Check(Model("shape={c:1, h:4, w:4}", "shape={c:1, h:1, w:1}",
                              "averagePool2d(windowDimensions=[5, 5])"));
  ASSERT_THAT(Errors(r), ::testing::SizeIs(1));
  EXPECT_THAT(Errors(r)[0], HasSubstr("3:45:"));  // at the value [5, 5]
  EXPECT_THAT(Errors(r)[0], HasSubstr("does not fit the padded input"));
}

TEST(Dag, DecomposesHighLevelOperators) {
  CheckResult r =
      Check(Model("shape=[4]", "shape=[4]",
                  "dropout(0.5), logSoftmax(), residual(to=model)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kDropout), 0);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kLogSoftmax), 0);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kResidual), 0);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kRandomUniform), 1);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kReduceMax), 1);
  // Dropout's result stands for its input outside training.
  ir::NodeId scaled = FindOp(*r.dag, ir::OpKind::kMul, 1);
  EXPECT_EQ(r.dag->graph.node(scaled).inference_alias,
            r.dag->graph.output(r.dag->inputs[0].node));
}

TEST(Dag, CullsWhatLeadsToNoOutput) {
  CheckResult r = Check(Model("shape=[3]", "shape=[3]", "relu(name=x), tanh()",
                              "aux:input shape=[3];\naux:layers add(x), "
                              "mul(w);\n"));
  ASSERT_TRUE(r.ok) << r.rendered;
  // Declared inputs stay: 2 inputs, relu, tanh, the output.
  EXPECT_EQ(r.summary->node_count, 5);
  EXPECT_THAT(r.summary->parameters, IsEmpty());
  EXPECT_THAT(Warnings(r),
              ElementsAre("input 'aux' is not used by any output",
                          "block 'aux' does not lead to any output; its "
                          "layers are left out"));
}

TEST(Dag, ReportsCycles) {
  EXPECT_THAT(Errors(Check(Model("shape=[4]", "shape=[4]",
                                 "relu(), add(later), tanh(name=later)"))),
              ElementsAre(HasSubstr("computed from this layer's own result")));
}

TEST(Dag, BatchNormalizationKeepsRunningStatistics) {
  CheckResult r =
      Check(Model("shape={channels:3, h:2, w:2}",
                  "shape={channels:3, h:2, w:2}", "batchNormalization(s, b)"));
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_EQ(r.summary->parameters.size(), 2u);
  ASSERT_EQ(r.summary->state.size(), 2u);
  EXPECT_EQ(r.summary->state[0].name, "runningMean1");
  EXPECT_EQ(r.summary->state[1].init, ir::Init::kOnes);
  EXPECT_EQ(r.summary->parameter_count, 6);
}

TEST(Dag, RecurrentLayersUseTheSequenceLayout) {
  CheckResult r = Check(Model("shape={sequence, f:5}", "shape=[8]",
                              "gru(w, r, direction=both, shape=[8])"));
  ASSERT_TRUE(r.ok) << r.rendered;
  // hiddenSize = 8 / 2 directions.
  EXPECT_THAT(ParameterType(r, "w1").shape, ElementsAre(2, 12, 5));
  const ir::Node& gru = r.dag->graph.node(FindOp(*r.dag, ir::OpKind::kGru));
  EXPECT_EQ(gru.attrs.GetInt("steps", 0), ir::kSequenceDim);
  EXPECT_EQ(CountOps(*r.dag, ir::OpKind::kTranspose), 2);
}

TEST(Dag, EnforcesLimits) {
  ir::Limits limits;
  limits.max_tensor_bytes = 1000;
  CheckResult r = Check(
      Model("shape=[100]", "shape=[1000]", "matmul(w, shape=[1000])"), limits);
  EXPECT_THAT(Errors(r), ElementsAre(HasSubstr("beyond the size limits")));
}

}  // namespace
}  // namespace webnnm::dag
