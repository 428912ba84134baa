// `webnnmctl train --local`: trains a model in-process on a dataset file
// (engine/train/run.h), with a progress bar on a terminal and plain lines
// otherwise, then tests it (docs/cli.md). --save keeps a snapshot
// (engine/train/checkpoint.h) of the run, rewritten atomically at most every
// 10 seconds and after the last epoch; --resume continues from one.
#ifndef WEBNNM_CLIENT_TRAIN_COMMAND_H_
#define WEBNNM_CLIENT_TRAIN_COMMAND_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/local_data.h"
#include "client/replicas.h"

namespace webnnm::client {

struct TrainOptions {
  std::string file;
  bool local = false;
  DataOptions data;
  std::string backend = "cpu";
  std::string save;    // the snapshot, written after epochs and at the end
  std::string resume;  // a snapshot to continue from
  int stop_after_epoch = 0;  // > 0: stop there, as if interrupted
  // On the daemon (without --local): the run's name, tags and note.
  std::string run_name, note;
  std::vector<std::string> tags;
  HyperparameterFlags hyperparameters;
  // --replicas N > 1 (client/replicas.h): this process's place among them,
  // and the command line that starts the others.
  ReplicaFlags replica;
  std::vector<std::string> argv;
};

// Adds the subcommand and its flags; the options live in `options`.
CLI::App* AddTrainCommand(CLI::App& app, TrainOptions& options);

// Adds the data flags, --backend and every hyperparameter flag (shared by
// `train` and `submit`).
void AddTrainFlags(CLI::App& cmd, TrainOptions& options);

// Runs it; `json` selects -o json. Returns the exit code (2 for a bad flag
// or hyperparameter, 1 when the run fails).
int RunTrain(const TrainOptions& options, bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_TRAIN_COMMAND_H_
