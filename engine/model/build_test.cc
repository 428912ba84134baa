// Block instantiation: sections and templates, macros, shapes=, names,
// parameter numbering, and the errors of each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/lang/parser.h"
#include "engine/model/build.h"
#include "engine/testing/check_test_util.h"

namespace webnnm::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using webnnm::testing::Errors;

struct Built {
  Model model;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

Built BuildText(const std::string& text) {
  auto file = std::make_shared<SourceFile>("m.wnm", text);
  Diagnostics diagnostics(file);
  lang::Module module = lang::Parse(*file, diagnostics);
  Built built{Build(module, diagnostics), {}, {}};
  for (const LocatedDiagnostic& d : diagnostics.LocateAll()) {
    std::string s = std::to_string(d.line) + ":" + std::to_string(d.column) +
                    ": " + d.message;
    (d.severity == Severity::kError ? built.errors : built.warnings)
        .push_back(s);
  }
  return built;
}

std::vector<std::string> Ops(const Model& model) {
  std::vector<std::string> ops;
  for (const Layer& layer : model.layers) ops.push_back(layer.op->name);
  return ops;
}

std::vector<std::string> Parameters(const Model& model) {
  std::vector<std::string> names;
  for (const Parameter& p : model.parameters) names.push_back(p.name);
  return names;
}

constexpr char kDense[] = "dense:layers matmul(w), add(b), activation();\n";

TEST(Build, InstantiatesTemplatesWithMacros) {
  Built b = BuildText(std::string("model:input shape=[4];\n"
                                  "model:output shape=[3];\n"
                                  "model:layers dense(shape=[8], "
                                  "activation=relu), dense(shape=[3], "
                                  "activation=softmax);\n") +
                      kDense);
  ASSERT_THAT(b.errors, IsEmpty());
  EXPECT_THAT(Ops(b.model),
              ElementsAre("matmul", "add", "relu", "matmul", "add", "softmax"));
  EXPECT_THAT(Parameters(b.model), ElementsAre("w1", "b1", "w2", "b2"));
  // The instance's shape goes to its last layer.
  ASSERT_TRUE(b.model.layers[2].shape.has_value());
  EXPECT_EQ(*b.model.layers[2].shape->dims[0].size, 8);
  EXPECT_FALSE(b.model.layers[1].shape.has_value());
}

TEST(Build, ShapesRepeatsWithFreshParametersAndSuffixedNames) {
  Built b = BuildText(std::string("model:input shape=[4];\n"
                                  "model:output shape=[2];\n"
                                  "model:layers dense(shapes=[[8], [2]], "
                                  "activation=tanh, name=stem);\n") +
                      kDense);
  ASSERT_THAT(b.errors, IsEmpty());
  EXPECT_THAT(Parameters(b.model), ElementsAre("w1", "b1", "w2", "b2"));
  EXPECT_THAT(b.model.layers[2].names, ElementsAre("stem1"));
  EXPECT_THAT(b.model.layers[5].names, ElementsAre("stem2"));
}

TEST(Build, SameNameTwiceInOneInstanceIsShared) {
  Built b = BuildText(
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers pair(), pair();\npair:layers matmul(w), matmul(w);\n");
  ASSERT_THAT(b.errors, IsEmpty());
  EXPECT_THAT(Parameters(b.model), ElementsAre("w1", "w2"));
  EXPECT_EQ(b.model.layers[0].operands[1].ref.name, "w1");
  EXPECT_EQ(b.model.layers[1].operands[1].ref.name, "w1");
  EXPECT_EQ(b.model.layers[2].operands[1].ref.name, "w2");
}

TEST(Build, ConstantsTakePrecedenceOverParameters) {
  Built b = BuildText(
      "w 2;\nmodel:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers mul(w), add(v);\n");
  ASSERT_THAT(b.errors, IsEmpty());
  EXPECT_EQ(b.model.layers[0].operands[1].ref.kind, TensorRef::Kind::kConstant);
  EXPECT_EQ(b.model.layers[1].operands[1].ref.kind,
            TensorRef::Kind::kParameter);
  EXPECT_THAT(Parameters(b.model), ElementsAre("v1"));
}

TEST(Build, LayerNamesResolveInTheirInstanceFirst) {
  Built b = BuildText(
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers skip(), skip();\n"
      "skip:layers relu(name=start), tanh(), residual(to=start);\n");
  ASSERT_THAT(b.errors, IsEmpty());
  // Each instance's residual adds its own `start` (globally start1, start2).
  EXPECT_EQ(b.model.layers[2].operands[1].ref.layer, 0);
  EXPECT_EQ(b.model.layers[5].operands[1].ref.layer, 3);
  EXPECT_THAT(b.model.layers[3].names, ElementsAre("start2"));
}

TEST(Build, OwnBlockNameMeansItsInput) {
  Built b = BuildText(
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers relu(), residual(to=model);\n");
  ASSERT_THAT(b.errors, IsEmpty());
  EXPECT_EQ(b.model.layers[1].operands[1].ref.kind,
            TensorRef::Kind::kSectionInput);
}

TEST(Build, OptionsNotMacrosGoToTheLastLayer) {
  Built b = BuildText(
      "model:input shape={a:2, b:3};\nmodel:output shape={a:2, b:3};\n"
      "model:layers norm(axis=a);\nnorm:layers relu(), softmax();\n");
  ASSERT_THAT(b.errors, IsEmpty());
  ASSERT_EQ(b.model.layers[1].options.size(), 1u);
  EXPECT_EQ(b.model.layers[1].options[0].attr, "axis");
  EXPECT_TRUE(b.model.layers[0].options.empty());
}

TEST(Build, PositionalOperandsFollowTheLanguageOrder) {
  Built b = BuildText(
      "model:input shape={c:4, h:2, w:2};\nmodel:output shape={c:4, h:2, "
      "w:2};\nmodel:layers batchNormalization(s, t), where(1, 2), "
      "dropout(0.3);\n");
  ASSERT_THAT(b.errors, IsEmpty());
  const Layer& bn = b.model.layers[0];
  ASSERT_EQ(bn.operands.size(), 3u);
  EXPECT_EQ(bn.operands[1].slot, 3);  // scale
  EXPECT_EQ(bn.operands[2].slot, 4);  // bias
  const Layer& where = b.model.layers[1];
  EXPECT_EQ(where.operands[0].slot, 0);  // the input is the condition
  EXPECT_EQ(where.operands[1].slot, 1);
  EXPECT_EQ(where.operands[2].slot, 2);
  ASSERT_EQ(b.model.layers[2].options.size(), 1u);
  EXPECT_EQ(b.model.layers[2].options[0].attr, "p");
}

TEST(Build, ReportsUnknownOperatorsWithSuggestions) {
  Built b = BuildText(
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers sofmax();\n");
  EXPECT_THAT(b.errors, ElementsAre("3:14: unknown operator 'sofmax'; did "
                                    "you mean 'softmax'?"));
}

TEST(Build, ReportsAnUnboundMacroWhereTheBlockIsUsed) {
  Built b = BuildText(std::string("model:input shape=[4];\n"
                                  "model:output shape=[3];\n"
                                  "model:layers dense(shape=[3]);\n") +
                      kDense);
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_THAT(b.errors[0], HasSubstr("3:14: block 'dense' uses "
                                     "'activation()' as a macro"));
}

TEST(Build, ABadMacroValuePointsAtTheOption) {
  Built b = BuildText(std::string("model:input shape=[4];\n"
                                  "model:output shape=[3];\n"
                                  "model:layers dense(shape=[3], "
                                  "activation=3);\n") +
                      kDense);
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_THAT(b.errors[0], HasSubstr("3:42: 'activation' is used as an "
                                     "operator"));
}

TEST(Build, ReportsRecursion) {
  Built b = BuildText(
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers a();\na:layers b();\nb:layers a();\n");
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_THAT(b.errors[0], HasSubstr("(a -> b -> a)"));
}

TEST(Build, BoundsTheExpansion) {
  // 10 x 10 x 10 x 10 x 10 x 10 layers would be a million.
  std::string text =
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers t0();\n";
  std::string shapes = "shapes=[[4],[4],[4],[4],[4],[4],[4],[4],[4],[4]]";
  for (int i = 0; i < 6; ++i) {
    text += "t" + std::to_string(i) + ":layers t" + std::to_string(i + 1) +
            "(" + shapes + ");\n";
  }
  text += "t6:layers relu();\n";
  Built b = BuildText(text);
  ASSERT_FALSE(b.errors.empty());
  EXPECT_THAT(b.errors[0], HasSubstr("more than 100000 layers"));
  EXPECT_LE(b.model.layers.size(), static_cast<size_t>(kMaxLayers));
}

TEST(Build, ChecksOperandsAndOptions) {
  Built b = BuildText(
      "model:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers relu(1), matmul(), softmax(axis=0, axis=0), "
      "conv2d(f, filter=g), softmax(axes=0);\n");
  EXPECT_THAT(b.errors,
              ElementsAre(HasSubstr("relu takes no operands besides its "
                                    "input"),
                          HasSubstr("matmul needs its operand 'b'"),
                          HasSubstr("option 'axis' is given twice"),
                          HasSubstr("operand 'filter' is given twice"),
                          HasSubstr("softmax has no option 'axes'; did you "
                                    "mean 'axis'?")));
}

TEST(Build, ChecksNames) {
  Built b = BuildText(
      "c 1;\nc 2;\nmodel:input shape=[4];\nmodel:output shape=[4];\n"
      "model:layers relu(name=x), tanh(name=x), sigmoid(name=c);\n");
  EXPECT_THAT(b.errors, ElementsAre(HasSubstr("constant 'c' is declared twice"),
                                    HasSubstr("layer name 'x' is already used"),
                                    HasSubstr("'c' is already a constant")));
}

TEST(Build, ChecksDeclaredShapes) {
  Built b = BuildText(
      "model:input shape={batch:4, x:2, x:3};\n"
      "model:output shape={sequence:2, y};\nmodel:layers relu();\n");
  EXPECT_THAT(b.errors, ElementsAre(HasSubstr("'batch' is reserved"),
                                    HasSubstr("'x' appears twice"),
                                    HasSubstr("'sequence' takes no size"),
                                    HasSubstr("'y' needs a size")));
}

TEST(Build, WarnsAboutUnusedTemplatesAndTheSpecSlip) {
  Built b = BuildText(
      "mode:name x;\nmodel:input shape=[4];\n"
      "model:output shape=[4];\nmodel:layers relu();\n"
      "unused:layers tanh();\n");
  EXPECT_THAT(b.errors, IsEmpty());
  EXPECT_EQ(b.model.name, "x");
  EXPECT_THAT(b.warnings,
              ElementsAre("1:1: 'mode:name' is read as 'model:name'",
                          "5:1: block 'unused' is never used"));
}

TEST(Build, NeedsAnInputAndAnOutput) {
  EXPECT_THAT(
      BuildText("model:input shape=[4];\nmodel:layers relu();\n").errors,
      ElementsAre(HasSubstr("declares no output")));
  EXPECT_THAT(BuildText("t:layers relu();\n").errors,
              ElementsAre(HasSubstr("no block with an input or an output")));
}

TEST(Build, ManyConstantsAreIndexedByName) {
  // 100,000 constants check in linear time: each is found through the
  // index, not by a scan of those before it (issue 22: 7.6 s before).
  std::string text;
  for (int i = 0; i < 100000; ++i) {
    text += "c" + std::to_string(i) + " float32 " + std::to_string(i) + ";\n";
  }
  text += "c7 float32 1;\n";  // declared twice
  Built b = BuildText(text +
                      "model:input shape=[4];\nmodel:output shape=[4];\n"
                      "model:layers add(c99999);\n");
  ASSERT_EQ(b.model.constants.size(), 100000u);
  EXPECT_EQ(b.model.constant_index.size(), 100000u);
  EXPECT_EQ(b.model.FindConstant("c99999"), 99999);
  EXPECT_EQ(b.model.FindConstant("c100000"), -1);
  EXPECT_THAT(b.errors,
              ElementsAre(HasSubstr("constant 'c7' is declared twice")));
}

}  // namespace
}  // namespace webnnm::model
