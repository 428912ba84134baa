// WebNN conformance vectors (tests/conformance/wpt/README.md): loading a case
// into a graph with its input data and expected outputs, and comparing
// results with the case's tolerance.
//
// The graph is built through ir::GraphBuilder, WebNN call by call: each
// operator's arguments and options are matched by name to the operation's
// operand slots and attributes (ir::OpDef), so the vectors exercise the same
// rules as models do.
#ifndef WEBNNM_TESTS_CONFORMANCE_CONFORMANCE_CASE_H_
#define WEBNNM_TESTS_CONFORMANCE_CONFORMANCE_CASE_H_

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"

namespace webnnm::conformance {

struct Tolerance {
  enum class Metric { kUlp, kAtol };
  Metric metric = Metric::kUlp;
  double value = 0;
  double rtol = 0;
};

// A tensor's elements, encoded as the backend stores them.
struct TensorData {
  std::string name;
  ir::TensorType type;
  std::vector<std::byte> bytes;
};

struct Expected {
  std::string name;
  ir::TensorType type;
  nlohmann::json data;  // the expected numbers (see vector_errata.h)
  bool fill = false;    // one number for every element
  // Overrides the case's tolerance (the gradients of a case have their own).
  std::optional<Tolerance> tolerance;
};

struct Case {
  std::string name;
  ir::Graph graph;
  std::vector<TensorData> inputs;  // graph inputs, by name
  std::vector<Expected> outputs;
  Tolerance tolerance;
  // The (operation, data type) pairs the case runs, for skipping.
  std::set<std::pair<ir::OpKind, ir::DType>> uses;
  const nlohmann::json* gradients = nullptr;  // the optional extension
};

// Builds the case described by `test` (one element of a file's "tests").
// Errors name what could not be built (an unknown operator, a bad argument,
// a rule's rejection, a tensor beyond `limits`). Throws nlohmann::json
// exceptions for JSON of the wrong shape; `test` must outlive the Case.
absl::StatusOr<Case> BuildCase(const nlohmann::json& test,
                               const ir::Limits& limits = {});

// Encodes JSON numbers (and "NaN", "Infinity", "-Infinity") as `type`'s
// elements; `fill` repeats the single value `count` times.
absl::StatusOr<std::vector<std::byte>> EncodeData(const nlohmann::json& data,
                                                  ir::DType type, int64_t count,
                                                  bool fill);

// Compares `actual` (the backend's bytes) with the expected numbers; returns
// "" when every element is within the tolerance, else a description of the
// largest error and where it is.
std::string Compare(const Expected& expected, const std::byte* actual,
                    const Tolerance& tolerance);

}  // namespace webnnm::conformance

#endif  // WEBNNM_TESTS_CONFORMANCE_CONFORMANCE_CASE_H_
