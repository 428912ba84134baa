#include "client/compare_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "client/format.h"
#include "client/job_json.h"
#include "client/terminal.h"

namespace webnnm::client {
namespace {

// A value as the table shows it: text as it is, numbers in short form.
std::string Text(const Json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", v.get<double>());
    return buffer;
  }
  return v.dump();
}

const Json& At(const Json& object, const std::string& key) {
  static const Json* const kNull = new Json(nullptr);
  return object.is_object() && object.contains(key) ? object[key] : *kNull;
}

}  // namespace

std::vector<CompareRow> CompareRows(const std::vector<v1::Job>& jobs) {
  std::vector<Json> all;
  for (const v1::Job& j : jobs) all.push_back(JobJson(j));
  std::vector<CompareRow> rows;
  auto add = [&](const std::string& section, const std::string& name,
                 auto value_of) {
    CompareRow row{section, name, {}, false};
    for (const Json& j : all) row.values.push_back(Text(value_of(j)));
    for (const std::string& v : row.values) {
      row.differs |= v != row.values.front();
    }
    rows.push_back(std::move(row));
  };
  for (const char* key : {"name", "state", "modelName", "backend", "alias"}) {
    add("run", key, [key](const Json& j) { return At(j, key); });
  }
  add("run", "tags", [](const Json& j) { return At(j, "tags").dump(); });
  add("data", "dataset", [](const Json& j) {
    return Json(Text(At(At(j, "dataset"), "name")) + " (" +
                Text(At(j, "datasetId")) + ")");
  });
  // Every data setting and every resolved hyperparameter any job has.
  for (const char* section : {"data", "hyperparameters"}) {
    std::vector<std::string> keys;
    for (const Json& j : all) {
      for (const auto& [key, value] : At(j, section).items()) {
        if (key == "datasetId") continue;
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
          keys.push_back(key);
        }
      }
    }
    for (const std::string& key : keys) {
      add(section, key,
          [section, key](const Json& j) { return At(At(j, section), key); });
    }
  }
  for (const char* key :
       {"epoch", "bestEpoch", "finalTrainLoss", "validationLoss", "testLoss",
        "testAccuracy", "trainedSamples", "durationSeconds", "error"}) {
    add("results", key, [key](const Json& j) { return At(j, key); });
  }
  return rows;
}

void PrintComparison(const std::vector<v1::Job>& jobs, bool only_differences,
                     bool json) {
  const std::vector<CompareRow> rows = CompareRows(jobs);
  if (json) {
    Json ids = Json::array(), list = Json::array();
    for (const v1::Job& j : jobs) ids.push_back(j.job_id());
    for (const CompareRow& r : rows) {
      if (only_differences && !r.differs) continue;
      list.push_back({{"section", r.section},
                      {"name", r.name},
                      {"values", r.values},
                      {"differs", r.differs}});
    }
    std::cout << Json{{"jobs", ids}, {"rows", list}}.dump() << "\n";
    return;
  }
  std::vector<std::vector<std::string>> table = {{"", "SECTION", "NAME"}};
  for (const v1::Job& j : jobs) table[0].push_back(j.job_id());
  int differing = 0;
  for (const CompareRow& r : rows) {
    differing += r.differs;
    if (only_differences && !r.differs) continue;
    std::vector<std::string> line = {r.differs ? "*" : "", r.section, r.name};
    for (const std::string& v : r.values) line.push_back(Cut(v, 40));
    table.push_back(std::move(line));
  }
  std::cout << Table(table);
  std::cout << differing << " of " << rows.size() << " rows differ (marked *)"
            << (only_differences ? "" : "; --diff shows only those") << "\n";
}

}  // namespace webnnm::client
