// The table of operations: every entry of op_list.def is defined once, can
// be found by its name and aliases, and says how it is run.
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/ops/op_test_util.h"

namespace webnnm::ops {
namespace {

using ::testing::UnorderedElementsAre;

constexpr const char* kHighLevelOps[] = {"residual", "attend", "dropout",
                                         "reduceVariance", "logSoftmax",
                                         "embedding"};

TEST(Registry, HasOneDefinitionPerKind) {
  const auto& ops = ir::AllOps();
  ASSERT_EQ(ops.size(), static_cast<size_t>(ir::kNumOps));
  for (int i = 0; i < ir::kNumOps; ++i) {
    ASSERT_NE(ops[i], nullptr) << i;
    EXPECT_EQ(static_cast<int>(ops[i]->kind), i) << ops[i]->name;
    EXPECT_EQ(&ir::GetOp(static_cast<ir::OpKind>(i)), ops[i]) << ops[i]->name;
    EXPECT_NE(ops[i]->infer, nullptr) << ops[i]->name;
    EXPECT_FALSE(ops[i]->operands.empty()) << ops[i]->name;
  }
}

TEST(Registry, NamesAndAliasesAreUnique) {
  std::vector<std::string> names = ir::AllOpNames();
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  EXPECT_GE(names.size(), static_cast<size_t>(ir::kNumOps));
  for (const std::string& name : names) EXPECT_FALSE(name.empty());
}

TEST(Registry, FindOpFindsEveryName) {
  for (const ir::OpDef* op : ir::AllOps()) {
    EXPECT_EQ(ir::FindOp(op->name), op) << op->name;
    for (const char* alias : op->aliases) {
      EXPECT_EQ(ir::FindOp(alias), op) << alias;
    }
  }
  EXPECT_EQ(ir::FindOp("convolution"), nullptr);
  EXPECT_EQ(ir::FindOp(""), nullptr);
  EXPECT_EQ(ir::FindOp("Conv2d"), nullptr);  // names are case-sensitive
}

TEST(Registry, AliasesNameTheRightOperations) {
  const std::pair<const char*, const char*> aliases[] = {
      {"batchNorm", "batchNormalization"},
      {"instanceNorm", "instanceNormalization"},
      {"layerNorm", "layerNormalization"},
      {"reduce1", "reduceL1"},
      {"reduce2", "reduceL2"},
      {"resample2D", "resample2d"},
      {"convTranspose2D", "convTranspose2d"},
      {"logicalXOr", "logicalXor"}};
  for (const auto& [alias, name] : aliases) {
    const ir::OpDef* op = ir::FindOp(alias);
    ASSERT_NE(op, nullptr) << alias;
    EXPECT_STREQ(op->name, name) << alias;
  }
}

TEST(Registry, OnlyHighLevelOperationsDecompose) {
  std::vector<std::string> decomposed;
  for (const ir::OpDef* op : ir::AllOps()) {
    if (op->decompose != nullptr) decomposed.push_back(op->name);
    // gemm decomposes its batched (rank > 2) form only.
    if (op->kind == ir::OpKind::kGemm) continue;
    EXPECT_EQ(op->decompose != nullptr,
              op->category == ir::OpCategory::kHighLevel)
        << op->name;
  }
  EXPECT_THAT(decomposed,
              UnorderedElementsAre("residual", "attend", "dropout",
                                   "reduceVariance", "logSoftmax", "embedding",
                                   "gemm"));
  for (const char* name : kHighLevelOps) {
    const ir::OpDef* op = ir::FindOp(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_NE(op->decompose, nullptr) << name;
  }
  EXPECT_EQ(ir::FindOp("randomUniform")->decompose, nullptr);
}

TEST(Registry, WebNNOperationsComeBeforeTheExtensions) {
  // op_list.def lists WebNN's operations first, then the high-level and
  // internal ones.
  bool extensions = false;
  int webnn = 0;
  for (const ir::OpDef* op : ir::AllOps()) {
    bool extension = op->category == ir::OpCategory::kHighLevel ||
                     op->category == ir::OpCategory::kInternal;
    if (extension) {
      extensions = true;
    } else {
      EXPECT_FALSE(extensions) << op->name << " follows an extension";
      ++webnn;
    }
  }
  EXPECT_EQ(webnn, 95);  // the WebNN operation set op_list.def covers
}

TEST(Registry, AttributeAndOperandNamesAreUniquePerOperation) {
  for (const ir::OpDef* op : ir::AllOps()) {
    std::set<std::string> attrs;
    for (const ir::AttrSpec& spec : op->attrs) {
      EXPECT_TRUE(attrs.insert(spec.name).second)
          << op->name << " " << spec.name;
      EXPECT_EQ(op->FindAttr(spec.name), &spec) << op->name;
      if (spec.kind == ir::AttrKind::kEnum) {
        EXPECT_FALSE(spec.choices.empty()) << op->name << " " << spec.name;
      }
    }
    std::set<std::string> operands;
    for (size_t i = 0; i < op->operands.size(); ++i) {
      const char* name = op->operands[i].name;
      EXPECT_TRUE(operands.insert(name).second) << op->name << " " << name;
      EXPECT_EQ(op->FindOperand(name), static_cast<int>(i)) << op->name;
      EXPECT_FALSE(op->operands[i].types.empty()) << op->name << " " << name;
    }
    EXPECT_EQ(op->FindOperand("no such operand"), -1);
  }
}

TEST(Registry, OnlyConcatIsVariadic) {
  for (const ir::OpDef* op : ir::AllOps()) {
    EXPECT_EQ(op->variadic(), std::string(op->name) == "concat") << op->name;
  }
}

TEST(Registry, SolversExistWhereWeightsMustBeInferred) {
  // A kWeight or kGlorotWeight slot has no per-channel default: its operation
  // needs a solver.
  for (const ir::OpDef* op : ir::AllOps()) {
    for (const ir::OperandSpec& operand : op->operands) {
      if (operand.param == ir::ParamRole::kWeight ||
          operand.param == ir::ParamRole::kGlorotWeight) {
        EXPECT_NE(op->solve, nullptr) << op->name << " " << operand.name;
      }
    }
  }
}

}  // namespace
}  // namespace webnnm::ops
