// `webnnmctl predict --local FILE --load SNAPSHOT --dataset PATH
// [--output OUT.csv|OUT.npz] [-o json]`: predicts every sample of a dataset
// in file order through a snapshot's best parameters (engine/api/predict.h),
// with the snapshot's imputation and standardization, class names and the
// targets' units; `webnnmctl predict JOB --dataset PATH|ID` asks the
// daemon's Predict the same of a job (remote_predict.cc). Without --output
// the predictions go to standard output: CSV, or one JSON object per
// sample with -o json (docs/cli.md).
#ifndef WEBNNM_CLIENT_PREDICT_COMMAND_H_
#define WEBNNM_CLIENT_PREDICT_COMMAND_H_

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "client/local_data.h"
#include "client/remote.h"
#include "engine/api/predict.h"

namespace webnnm::client {

struct PredictOptions {
  std::string file;  // the model file (--local), else the job id
  bool local = false;
  std::string load;
  DataOptions data;
  std::string output;  // a .csv file; empty: standard output
  std::string backend = "cpu";
  HyperparameterFlags hyperparameters;  // threads and batchSize only
};

CLI::App* AddPredictCommand(CLI::App& app, PredictOptions& options);

// Returns the exit code.
int RunPredict(const PredictOptions& options, bool json);
// One JSON object a sample: {"index": i, OUTPUT: {"class": NAME,
// "probabilities": […]} or {"value": v or […]}}; a sequenced output's
// object is {"steps": [one such object per real step]}.
void WriteJsonLines(const Predictions& p, std::ostream& out);
// Without --local: the daemon's Predict of job `options.file`.
int RunRemotePredict(const RemoteOptions& remote,
                     const PredictOptions& options, bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_PREDICT_COMMAND_H_
