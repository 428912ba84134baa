// `webnnmctl compare JOB JOB…`: the jobs side by side, as the browser's
// compare view — every data setting, every resolved hyperparameter and the
// results, a row each, the rows whose values differ marked with `*`
// (`--diff`: only those). `-o json`: {"jobs": [ids], "rows": [{"section",
// "name", "values": [one per job], "differs"}]}.
#ifndef WEBNNM_CLIENT_COMPARE_COMMAND_H_
#define WEBNNM_CLIENT_COMPARE_COMMAND_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::client {

struct CompareRow {
  std::string section;  // run, data, hyperparameters, results
  std::string name;
  std::vector<std::string> values;  // one per job; "-" when it has none
  bool differs = false;
};

// The rows comparing `jobs` (as GetJob returns them), in a fixed order.
std::vector<CompareRow> CompareRows(const std::vector<v1::Job>& jobs);

// Prints the comparison: a table, or the JSON object with `json`.
void PrintComparison(const std::vector<v1::Job>& jobs, bool only_differences,
                     bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_COMPARE_COMMAND_H_
