// Test helper: compiles a graph on the CPU backend and runs it with float32
// (or int32) inputs given by name; returns every output as doubles.
#ifndef WEBNNM_TESTS_TRAIN_RUN_GRAPH_H_
#define WEBNNM_TESTS_TRAIN_RUN_GRAPH_H_

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/ir/graph.h"

namespace webnnm::train::testing {

using Values = std::map<std::string, std::vector<double>>;

class GraphRunner {
 public:
  static absl::StatusOr<GraphRunner> Compile(const ir::Graph& graph) {
    auto backend = backends::CreateBackend("cpu");
    if (!backend.ok()) return backend.status();
    auto exe = (*backend)->Compile(graph, {});
    if (!exe.ok()) return exe.status();
    GraphRunner runner;
    runner.exe_ = std::shared_ptr<backends::Executable>(std::move(*exe));
    return runner;
  }

  // Writes the named inputs (float32 or int32 by the input's type).
  void Set(const Values& inputs) {
    for (const auto& [name, values] : inputs) {
      int i = exe_->FindInput(name);
      if (i < 0) continue;
      std::byte* out = exe_->input(i).data();
      bool is_int = exe_->inputs()[i].dtype == ir::DType::kInt32;
      for (size_t k = 0; k < values.size(); ++k) {
        if (is_int) {
          int32_t v = static_cast<int32_t>(values[k]);
          std::memcpy(out + 4 * k, &v, 4);
        } else {
          float v = static_cast<float>(values[k]);
          std::memcpy(out + 4 * k, &v, 4);
        }
      }
    }
  }

  absl::StatusOr<Values> Run(const Values& inputs = {}) {
    Set(inputs);
    absl::Status status = exe_->Run();
    if (!status.ok()) return status;
    Values outputs;
    for (size_t i = 0; i < exe_->outputs().size(); ++i) {
      auto bytes = exe_->output(i);
      std::vector<double>& values = outputs[exe_->outputs()[i].name];
      for (size_t k = 0; k + 4 <= bytes.size(); k += 4) {
        float v;
        std::memcpy(&v, bytes.data() + k, 4);
        values.push_back(v);
      }
    }
    return outputs;
  }

  backends::Executable& executable() { return *exe_; }

 private:
  std::shared_ptr<backends::Executable> exe_;
};

}  // namespace webnnm::train::testing

#endif  // WEBNNM_TESTS_TRAIN_RUN_GRAPH_H_
