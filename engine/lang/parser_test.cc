// The parser: every statement form of the grammar with the errata, and the
// errors it reports (what was expected, what was found, where) and recovers
// from.
#include "engine/lang/parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace webnnm::lang {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

struct Parsed {
  std::shared_ptr<const SourceFile> file;
  Diagnostics diagnostics;
  Module module;

  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diagnostics.all()) out.push_back(d.message);
    return out;
  }
};

Parsed ParseText(std::string text) {
  auto file = std::make_shared<const SourceFile>("m.wnm", std::move(text));
  Parsed parsed{file, Diagnostics(file), {}};
  parsed.module = Parse(*file, parsed.diagnostics);
  return parsed;
}

// Parses text that must be valid and returns its only property.
BlockProperty OnlyProperty(std::string text) {
  Parsed parsed = ParseText(std::move(text));
  EXPECT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  EXPECT_THAT(parsed.module.constants, IsEmpty());
  EXPECT_THAT(parsed.module.properties, SizeIs(1));
  return parsed.module.properties.empty() ? BlockProperty()
                                          : parsed.module.properties[0];
}

ConstantDecl OnlyConstant(std::string text) {
  Parsed parsed = ParseText(std::move(text));
  EXPECT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  EXPECT_THAT(parsed.module.properties, IsEmpty());
  EXPECT_THAT(parsed.module.constants, SizeIs(1));
  return parsed.module.constants.empty() ? ConstantDecl()
                                         : parsed.module.constants[0];
}

// The sizes of a shape's dimensions (-1 for a bare name).
std::vector<int64_t> Sizes(const ShapeSpec& shape) {
  std::vector<int64_t> out;
  for (const Dim& dim : shape.dims) out.push_back(dim.size.value_or(-1));
  return out;
}
std::vector<std::string> Names(const ShapeSpec& shape) {
  std::vector<std::string> out;
  for (const Dim& dim : shape.dims) out.push_back(dim.name);
  return out;
}

// ---- block properties ------------------------------------------------------

TEST(ParseBlock, NameAndLoss) {
  Parsed parsed = ParseText("model:name basic-model;\nmodel:loss CCEL;");
  ASSERT_FALSE(parsed.diagnostics.has_errors());
  ASSERT_THAT(parsed.module.properties, SizeIs(2));
  const BlockProperty& name = parsed.module.properties[0];
  EXPECT_EQ(name.block, "model");
  EXPECT_EQ(name.kind, PropertyKind::kName);
  EXPECT_TRUE(name.value.is_name("basic-model"));
  EXPECT_EQ(parsed.file->Slice(name.block_range), "model");
  EXPECT_EQ(parsed.file->Slice(name.kind_range), "name");
  EXPECT_EQ(parsed.file->Slice(name.range), "model:name basic-model");
  const BlockProperty& loss = parsed.module.properties[1];
  EXPECT_EQ(loss.kind, PropertyKind::kLoss);
  EXPECT_TRUE(loss.value.is_name("CCEL"));
}

TEST(ParseBlock, NumberProperties) {
  Parsed parsed =
      ParseText("model:alpha 0.25; model:delta 2.1; model:gamma 2;");
  ASSERT_FALSE(parsed.diagnostics.has_errors());
  ASSERT_THAT(parsed.module.properties, SizeIs(3));
  const auto& p = parsed.module.properties;
  EXPECT_EQ(p[0].kind, PropertyKind::kAlpha);
  EXPECT_TRUE(p[0].value.is_number());
  EXPECT_DOUBLE_EQ(p[0].value.number, 0.25);
  EXPECT_FALSE(p[0].value.integral);
  EXPECT_EQ(p[1].kind, PropertyKind::kDelta);
  EXPECT_DOUBLE_EQ(p[1].value.number, 2.1);
  EXPECT_EQ(p[1].value.text, "2.1");
  EXPECT_EQ(p[2].kind, PropertyKind::kGamma);
  EXPECT_TRUE(p[2].value.integral);
  EXPECT_EQ(p[2].value.integer, 2);
}

TEST(ParseBlock, InputWithTypeAndShapeKeyword) {
  BlockProperty input = OnlyProperty("model:input float16 shape=[784];");
  EXPECT_EQ(input.kind, PropertyKind::kInput);
  EXPECT_EQ(input.data_type, "float16");
  EXPECT_FALSE(input.shape.named);
  EXPECT_THAT(Sizes(input.shape), ElementsAre(784));
}

TEST(ParseBlock, InputAndOutputInEveryForm) {
  struct Case {
    const char* text;
    PropertyKind kind;
    const char* data_type;
  } cases[] = {
      {"m:input int32 [2, 3];", PropertyKind::kInput, "int32"},
      {"m:input shape=[2, 3];", PropertyKind::kInput, ""},
      {"m:input [2, 3];", PropertyKind::kInput, ""},
      {"m:output float32 shape=[2, 3];", PropertyKind::kOutput, "float32"},
      {"m:output uint8 [2,3];", PropertyKind::kOutput, "uint8"},
      {"m:output shape = [2 ,3] ;", PropertyKind::kOutput, ""},
      {"m:output [2, 3];", PropertyKind::kOutput, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    BlockProperty property = OnlyProperty(c.text);
    EXPECT_EQ(property.block, "m");
    EXPECT_EQ(property.kind, c.kind);
    EXPECT_EQ(property.data_type, c.data_type);
    EXPECT_THAT(Sizes(property.shape), ElementsAre(2, 3));
  }
}

TEST(ParseBlock, EmptyShapeIsAScalar) {
  BlockProperty output = OnlyProperty("model:output shape=[];");
  EXPECT_THAT(output.shape.dims, IsEmpty());
  EXPECT_FALSE(output.shape.named);
}

TEST(ParseBlock, NamedShape) {
  Parsed parsed = ParseText(
      "model:input float32 shape={height: 28, width: 28, channels:1};");
  ASSERT_FALSE(parsed.diagnostics.has_errors());
  const BlockProperty& input = parsed.module.properties.at(0);
  EXPECT_TRUE(input.shape.named);
  EXPECT_THAT(Names(input.shape), ElementsAre("height", "width", "channels"));
  EXPECT_THAT(Sizes(input.shape), ElementsAre(28, 28, 1));
  EXPECT_EQ(parsed.file->Slice(input.shape.dims[1].name_range), "width");
  EXPECT_EQ(parsed.file->Slice(input.shape.dims[1].range), "width: 28");
  EXPECT_EQ(parsed.file->Slice(input.shape.range),
            "{height: 28, width: 28, channels:1}");
}

TEST(ParseBlock, BareSequenceInANamedShape) {
  Parsed parsed = ParseText("model:input shape={sequence, features:32};");
  ASSERT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  const ShapeSpec& shape = parsed.module.properties.at(0).shape;
  ASSERT_THAT(shape.dims, SizeIs(2));
  EXPECT_EQ(shape.dims[0].name, "sequence");
  EXPECT_FALSE(shape.dims[0].size.has_value());
  EXPECT_EQ(parsed.file->Slice(shape.dims[0].range), "sequence");
  EXPECT_EQ(shape.dims[1].name, "features");
  EXPECT_EQ(shape.dims[1].size, 32);
}

TEST(ParseBlock, UnnamedShapeDimsHaveRanges) {
  Parsed parsed = ParseText("m:input [10, 20];");
  const ShapeSpec& shape = parsed.module.properties.at(0).shape;
  ASSERT_THAT(shape.dims, SizeIs(2));
  EXPECT_EQ(shape.dims[0].name, "");
  EXPECT_EQ(parsed.file->Slice(shape.dims[1].range), "20");
}

TEST(ParseBlock, LayersWithoutArguments) {
  BlockProperty layers = OnlyProperty("model:layers relu();");
  EXPECT_EQ(layers.kind, PropertyKind::kLayers);
  ASSERT_THAT(layers.layers, SizeIs(1));
  EXPECT_EQ(layers.layers[0].op, "relu");
  EXPECT_THAT(layers.layers[0].args, IsEmpty());
}

TEST(ParseBlock, SeveralLayersWithArguments) {
  // ERRATA 2: more than two arguments.
  Parsed parsed = ParseText(
      "model:layers dense(shape=[10], activation=softmax, name=x),\n"
      "  relu(), matmul(w), add(a, b, c, d);");
  ASSERT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  const std::vector<Layer>& layers = parsed.module.properties.at(0).layers;
  ASSERT_THAT(layers, SizeIs(4));
  EXPECT_EQ(layers[0].op, "dense");
  ASSERT_THAT(layers[0].args, SizeIs(3));
  EXPECT_EQ(layers[0].args[0].key, "shape");
  EXPECT_FALSE(layers[0].args[0].positional());
  EXPECT_TRUE(layers[0].args[0].value.is_list());
  EXPECT_EQ(layers[0].args[1].key, "activation");
  EXPECT_TRUE(layers[0].args[1].value.is_name("softmax"));
  EXPECT_EQ(layers[0].args[2].key, "name");
  EXPECT_TRUE(layers[0].args[2].value.is_name("x"));
  EXPECT_EQ(parsed.file->Slice(layers[0].args[1].range), "activation=softmax");
  EXPECT_EQ(parsed.file->Slice(layers[0].args[1].key_range), "activation");
  EXPECT_EQ(parsed.file->Slice(layers[0].range),
            "dense(shape=[10], activation=softmax, name=x)");
  EXPECT_EQ(layers[1].op, "relu");
  EXPECT_EQ(layers[2].op, "matmul");
  ASSERT_THAT(layers[2].args, SizeIs(1));
  EXPECT_TRUE(layers[2].args[0].positional());
  EXPECT_TRUE(layers[2].args[0].value.is_name("w"));
  EXPECT_THAT(layers[3].args, SizeIs(4));
  EXPECT_EQ(parsed.file->Slice(layers[3].op_range), "add");
}

TEST(ParseValue, NumbersAndNames) {
  BlockProperty p = OnlyProperty(
      "m:layers f(1, -2.5, 1e3, 6.02e23, +7, x, true, false, basic-model);");
  const std::vector<Argument>& args = p.layers.at(0).args;
  ASSERT_THAT(args, SizeIs(9));
  EXPECT_TRUE(args[0].value.integral);
  EXPECT_EQ(args[0].value.integer, 1);
  EXPECT_DOUBLE_EQ(args[1].value.number, -2.5);
  EXPECT_FALSE(args[1].value.integral);
  EXPECT_TRUE(args[2].value.integral);  // 1e3 has an integer value
  EXPECT_EQ(args[2].value.integer, 1000);
  EXPECT_DOUBLE_EQ(args[3].value.number, 6.02e23);
  EXPECT_FALSE(args[3].value.integral);  // beyond int64
  EXPECT_EQ(args[4].value.integer, 7);
  EXPECT_EQ(args[4].value.text, "+7");
  EXPECT_TRUE(args[5].value.is_name("x"));
  // ERRATA 3: booleans are names.
  EXPECT_TRUE(args[6].value.is_name("true"));
  EXPECT_TRUE(args[7].value.is_name("false"));
  EXPECT_TRUE(args[8].value.is_name("basic-model"));
}

TEST(ParseValue, LargeIntegersAreExact) {
  BlockProperty p = OnlyProperty("m:layers f(9007199254740993);");
  const Value& value = p.layers.at(0).args.at(0).value;
  EXPECT_TRUE(value.integral);
  EXPECT_EQ(value.integer, 9007199254740993);  // 2^53 + 1
}

TEST(ParseValue, NestedLists) {
  Parsed parsed = ParseText("m:layers f(x=[[1, 2], [3], [a, [4]]]);");
  ASSERT_FALSE(parsed.diagnostics.has_errors());
  const Value& list =
      parsed.module.properties.at(0).layers.at(0).args.at(0).value;
  ASSERT_TRUE(list.is_list());
  ASSERT_THAT(list.items, SizeIs(3));
  EXPECT_THAT(list.items[0].items, SizeIs(2));
  EXPECT_EQ(list.items[0].items[1].integer, 2);
  EXPECT_THAT(list.items[1].items, SizeIs(1));
  EXPECT_TRUE(list.items[2].items[0].is_name("a"));
  ASSERT_TRUE(list.items[2].items[1].is_list());
  EXPECT_EQ(list.items[2].items[1].items.at(0).integer, 4);
  EXPECT_EQ(parsed.file->Slice(list.items[2].range), "[a, [4]]");
}

TEST(ParseValue, Maps) {
  // ERRATA 3: a bare name inherits its size; items take numbers, names and
  // lists.
  Parsed parsed = ParseText(
      "m:layers expand(newShape={height: 2, width}), "
      "pool(windowDimensions={height:2, width:2}, "
      "padding={top: [1, 2], mode: same});");
  ASSERT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  const std::vector<Layer>& layers = parsed.module.properties.at(0).layers;
  ASSERT_THAT(layers, SizeIs(2));
  const Value& shape = layers[0].args.at(0).value;
  ASSERT_TRUE(shape.is_map());
  ASSERT_THAT(shape.entries, SizeIs(2));
  EXPECT_EQ(shape.entries[0].key, "height");
  EXPECT_EQ(shape.entries[0].value.integer, 2);
  EXPECT_EQ(shape.entries[1].key, "width");
  EXPECT_EQ(shape.entries[1].value.kind, Value::Kind::kNone);
  EXPECT_EQ(parsed.file->Slice(shape.entries[1].key_range), "width");
  EXPECT_EQ(parsed.file->Slice(shape.range), "{height: 2, width}");
  const Value& padding = layers[1].args.at(1).value;
  ASSERT_THAT(padding.entries, SizeIs(2));
  EXPECT_TRUE(padding.entries[0].value.is_list());
  EXPECT_TRUE(padding.entries[1].value.is_name("same"));
}

TEST(ParseValue, PositionalArgumentsCanBeListsAndMaps) {
  BlockProperty p = OnlyProperty("m:layers f([1, 2], {a: 1});");
  const std::vector<Argument>& args = p.layers.at(0).args;
  ASSERT_THAT(args, SizeIs(2));
  EXPECT_TRUE(args[0].positional());
  EXPECT_TRUE(args[0].value.is_list());
  EXPECT_TRUE(args[1].positional());
  EXPECT_TRUE(args[1].value.is_map());
}

TEST(ParseValue, NestingUpToTheLimitIsAccepted) {
  // 64 lists inside each other: the deepest that is allowed.
  std::string text = "m:layers f(x=" + std::string(64, '[') + "1" +
                     std::string(64, ']') + ");";
  Parsed parsed = ParseText(text);
  EXPECT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
}

TEST(ParseValue, DeepNestingIsReportedOnce) {
  for (int depth : {65, 100, 100000}) {
    std::string text = "m:layers f(x=" + std::string(depth, '[') + "1" +
                       std::string(depth, ']') + ");\nm:name ok;";
    Parsed parsed = ParseText(text);
    EXPECT_THAT(parsed.messages(),
                ElementsAre("lists and maps are nested more than 64 deep"))
        << depth;
    // The statement after it still parses.
    ASSERT_THAT(parsed.module.properties, SizeIs(1)) << depth;
    EXPECT_TRUE(parsed.module.properties[0].value.is_name("ok"));
  }
}

TEST(ParseValue, DeepNestingOfListsAndMapsIsReported) {
  std::string text = "m:layers f(x=";
  for (int i = 0; i < 40; ++i) text += "[{a: ";
  for (int i = 0; i < 40; ++i) text += "}]";
  Parsed parsed = ParseText(text + ");");
  EXPECT_THAT(parsed.messages(),
              ElementsAre(HasSubstr("nested more than 64 deep")));
}

// ---- constants
// ---------------------------------------------------------------

TEST(ParseConstant, ScalarWithAndWithoutType) {
  Parsed parsed = ParseText("pi float32 3.1415926;\ne 2.718;\nn int32 -4;");
  ASSERT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  const auto& c = parsed.module.constants;
  ASSERT_THAT(c, SizeIs(3));
  EXPECT_EQ(c[0].name, "pi");
  EXPECT_EQ(c[0].data_type, "float32");
  EXPECT_TRUE(c[0].scalar);
  EXPECT_DOUBLE_EQ(c[0].value.number, 3.1415926);
  EXPECT_EQ(parsed.file->Slice(c[0].data_type_range), "float32");
  EXPECT_EQ(parsed.file->Slice(c[0].range), "pi float32 3.1415926");
  EXPECT_EQ(c[1].name, "e");
  EXPECT_EQ(c[1].data_type, "");  // float32 by default
  EXPECT_TRUE(c[1].scalar);
  EXPECT_EQ(c[2].value.integer, -4);
}

TEST(ParseConstant, TensorShapeThenData) {
  ConstantDecl c = OnlyConstant("foo int32 shape=[4] data=[1, 1, 0, 0];");
  EXPECT_EQ(c.name, "foo");
  EXPECT_EQ(c.data_type, "int32");
  EXPECT_FALSE(c.scalar);
  EXPECT_THAT(Sizes(c.shape), ElementsAre(4));
  ASSERT_TRUE(c.value.is_list());
  ASSERT_THAT(c.value.items, SizeIs(4));
  EXPECT_EQ(c.value.items[0].integer, 1);
  EXPECT_EQ(c.value.items[3].integer, 0);
}

TEST(ParseConstant, TensorDataThenShapeWithoutType) {
  ConstantDecl c = OnlyConstant("bar data=[[1.5, 2], [3, 4]] shape=[2, 2];");
  EXPECT_EQ(c.data_type, "");
  EXPECT_FALSE(c.scalar);
  EXPECT_THAT(Sizes(c.shape), ElementsAre(2, 2));
  ASSERT_THAT(c.value.items, SizeIs(2));
  ASSERT_THAT(c.value.items[0].items, SizeIs(2));
  EXPECT_DOUBLE_EQ(c.value.items[0].items[0].number, 1.5);
}

TEST(ParseConstant, TensorWithNamedShape) {
  ConstantDecl c =
      OnlyConstant("t float16 shape={rows: 2, cols: 1} data=[1, 2];");
  EXPECT_TRUE(c.shape.named);
  EXPECT_THAT(Names(c.shape), ElementsAre("rows", "cols"));
  EXPECT_THAT(Sizes(c.shape), ElementsAre(2, 1));
}

TEST(ParseModule, KeepsStatementsInOrderWithComments) {
  Parsed parsed = ParseText(
      "# a model\n"
      "w float32 shape=[2] data=[1, 2]; # weights\n"
      "model:input [2];\n"
      "two 2;\n"
      "model:layers mul(w);\n");
  ASSERT_FALSE(parsed.diagnostics.has_errors())
      << parsed.diagnostics.RenderAll();
  ASSERT_THAT(parsed.module.constants, SizeIs(2));
  EXPECT_EQ(parsed.module.constants[0].name, "w");
  EXPECT_EQ(parsed.module.constants[1].name, "two");
  ASSERT_THAT(parsed.module.properties, SizeIs(2));
  EXPECT_EQ(parsed.module.properties[0].kind, PropertyKind::kInput);
  EXPECT_EQ(parsed.module.properties[1].kind, PropertyKind::kLayers);
}

TEST(ParseModule, EmptyFileIsAnEmptyModule) {
  Parsed parsed = ParseText("  # nothing\n");
  EXPECT_FALSE(parsed.diagnostics.has_errors());
  EXPECT_THAT(parsed.module.constants, IsEmpty());
  EXPECT_THAT(parsed.module.properties, IsEmpty());
}

TEST(PropertyName, AllKinds) {
  EXPECT_STREQ(PropertyName(PropertyKind::kName), "name");
  EXPECT_STREQ(PropertyName(PropertyKind::kLoss), "loss");
  EXPECT_STREQ(PropertyName(PropertyKind::kAlpha), "alpha");
  EXPECT_STREQ(PropertyName(PropertyKind::kDelta), "delta");
  EXPECT_STREQ(PropertyName(PropertyKind::kGamma), "gamma");
  EXPECT_STREQ(PropertyName(PropertyKind::kInput), "input");
  EXPECT_STREQ(PropertyName(PropertyKind::kOutput), "output");
  EXPECT_STREQ(PropertyName(PropertyKind::kLayers), "layers");
}

}  // namespace
}  // namespace webnnm::lang
