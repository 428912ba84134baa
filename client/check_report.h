// How `webnnmctl check` presents a CheckResult: a readable text summary, or
// the JSON object whose keys other programs read (docs/cli.md).
#ifndef WEBNNM_CLIENT_CHECK_REPORT_H_
#define WEBNNM_CLIENT_CHECK_REPORT_H_

#include <string>

#include "engine/check.h"

namespace webnnm::client {

// The summary of a valid model (empty for an invalid one); diagnostics are
// rendered separately (CheckResult::rendered).
std::string CheckText(const CheckResult& result);

// One JSON object, with every key always present:
// ok, name, inputs, outputs, parameters, parameterCount, nodeCount,
// diagnostics, warnings.
std::string CheckJson(const CheckResult& result);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_CHECK_REPORT_H_
