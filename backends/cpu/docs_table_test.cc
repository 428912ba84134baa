// docs/backends.md tells the truth: its operator table lists every
// operation the CPU backend runs with exactly the data types Supports()
// accepts, and its table of unsupported data types lists exactly the pairs
// WebNN allows that the backend declines (webnnm-conformance skips those).
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/cpu/kernel.h"
#include "engine/ir/op_def.h"

namespace webnnm::backends::cpu {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" `"), e = s.find_last_not_of(" `");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The cells of the rows of the Markdown table that follows `heading`.
std::vector<std::vector<std::string>> TableAfter(const std::string& doc,
                                                 const std::string& heading) {
  std::vector<std::vector<std::string>> rows;
  size_t at = doc.find("\n" + heading + "\n");
  if (at == std::string::npos) return rows;
  std::istringstream in(doc.substr(at + heading.size() + 2));
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) break;
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    std::vector<std::string> cells;
    std::istringstream cells_in(line.substr(1));
    std::string cell;
    while (std::getline(cells_in, cell, '|')) cells.push_back(Trim(cell));
    if (!cells.empty() && cells[0].find("---") == std::string::npos) {
      rows.push_back(cells);
    }
  }
  if (!rows.empty()) rows.erase(rows.begin());  // the header
  return rows;
}

std::string ReadDoc() {
  std::ifstream in(WEBNNM_SOURCE_DIR "/docs/backends.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string SupportedTypes(Backend& backend, ir::OpKind op) {
  std::string types;
  for (int t = 0; t < ir::kNumDTypes; ++t) {
    ir::DType dtype = static_cast<ir::DType>(t);
    if (!backend.Supports(op, dtype)) continue;
    if (!types.empty()) types += ", ";
    types += ir::DTypeName(dtype);
  }
  return types;
}

TEST(DocsBackends, OperatorTableMatchesSupports) {
  const std::string doc = ReadDoc();
  ASSERT_FALSE(doc.empty()) << "docs/backends.md is missing";
  std::map<std::string, std::string> documented;
  for (const auto& row : TableAfter(doc, "## Operators")) {
    ASSERT_GE(row.size(), 3u);
    EXPECT_TRUE(documented.emplace(row[0], row[1]).second)
        << row[0] << " is listed twice";
  }
  auto backend = CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  std::set<std::string> expected;
  for (const ir::OpDef* def : ir::AllOps()) {
    if (FindKernel(def->kind) == nullptr) continue;
    expected.insert(def->name);
    const std::string types = SupportedTypes(**backend, def->kind);
    auto it = documented.find(def->name);
    if (it == documented.end()) {
      ADD_FAILURE() << "missing row: | " << def->name << " | " << types
                    << " | ... |";
      continue;
    }
    EXPECT_EQ(it->second, types) << def->name;
  }
  for (const auto& [name, types] : documented) {
    EXPECT_TRUE(expected.count(name)) << name << " has no CPU kernel";
  }
}

TEST(DocsBackends, UnsupportedTypesTableMatchesSupports) {
  const std::string doc = ReadDoc();
  ASSERT_NE(doc.find("\n## Unsupported data types\n"), std::string::npos);
  std::set<std::pair<std::string, std::string>> documented;
  for (const auto& row : TableAfter(doc, "## Unsupported data types")) {
    ASSERT_GE(row.size(), 2u);
    if (row[0] == "(none)") continue;
    documented.insert({row[0], row[1]});
  }
  auto backend = CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  std::set<std::pair<std::string, std::string>> declined;
  for (const ir::OpDef* def : ir::AllOps()) {
    if (FindKernel(def->kind) == nullptr) continue;
    if (def->operands.empty()) continue;
    // The operand whose type Supports() is asked about (backend.h).
    const ir::OperandSpec* spec = &def->operands[0];
    for (const ir::OperandSpec& s : def->operands) {
      if (s.in_type_group) {
        spec = &s;
        break;
      }
    }
    for (int t = 0; t < ir::kNumDTypes; ++t) {
      ir::DType dtype = static_cast<ir::DType>(t);
      if (spec->types.Contains(dtype) &&
          !(*backend)->Supports(def->kind, dtype)) {
        declined.insert({def->name, ir::DTypeName(dtype)});
      }
    }
  }
  EXPECT_EQ(documented, declined);
}

}  // namespace
}  // namespace webnnm::backends::cpu
