// `webnnmctl test --local [FILE] --load SNAPSHOT --dataset PATH`: tests a
// snapshot's best parameters on a dataset's test subset (--all: the whole
// dataset), in-process, with
// the snapshot's standardization and class order (docs/cli.md). It takes
// train's data flags; --standardize changes nothing (the snapshot's
// statistics apply).
#ifndef WEBNNM_CLIENT_TEST_COMMAND_H_
#define WEBNNM_CLIENT_TEST_COMMAND_H_

#include <string>

#include <CLI/CLI.hpp>

#include "client/local_data.h"

namespace webnnm::client {

struct TestOptions {
  std::string file;
  bool local = false;
  std::string load;
  DataOptions data;
  bool all = false;            // the whole dataset is the test subset
  bool backend_given = false;  // --backend on the command line
  std::string backend = "cpu";
  HyperparameterFlags hyperparameters;  // threads and batchSize only
};

CLI::App* AddTestCommand(CLI::App& app, TestOptions& options);

// Returns the exit code; prints one JSON object with `json`.
int RunTest(const TestOptions& options, bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_TEST_COMMAND_H_
