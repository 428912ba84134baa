// webnnmctl's commands that talk to webnnmd over gRPC (docs/cli.md):
// submit, watch, list, get, tag, cancel, resume, delete, logs, metrics,
// infer, snapshot export|import, dataset upload|list, health, nodes. A job is
// named by its id or any unique prefix of it (as docker does). Global --server
// (env WEBNNM_SERVER, default 127.0.0.1:50051), --token (env WEBNNM_TOKEN),
// --ca FILE (TLS with that root certificate). Exit 0 on success, 1 on
// failure (a failed or cancelled job, a server error), 2 on usage errors.
#ifndef WEBNNM_CLIENT_REMOTE_H_
#define WEBNNM_CLIENT_REMOTE_H_

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/test_command.h"
#include "client/train_command.h"

namespace webnnm::client {

struct RemoteOptions {
  std::string server, token, ca;

  CLI::App* submit = nullptr;
  TrainOptions train;
  std::string idempotency_key;
  bool follow = false;   // submit --follow, logs --follow
  bool no_wait = false;  // cancel --no-wait
  // submit and tag: the run's name, tags (KEY=VALUE; tag also KEY- to
  // remove one) and note.
  std::string run_name, note;
  std::vector<std::string> tags;

  CLI::App* tag = nullptr;
  CLI::App* alias_cmd = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* export_metrics = nullptr;  // its --tensorboard DIR in `file`
  std::vector<std::string> compare_jobs;
  bool only_differences = false;  // compare --diff
  std::string alias;              // alias JOB NAME

  CLI::App *watch = nullptr, *logs = nullptr, *get = nullptr, *cancel = nullptr,
           *resume = nullptr, *remove = nullptr, *metrics = nullptr,
           *list = nullptr, *infer = nullptr;
  std::string job;
  int64_t from_seq = 0;
  std::string state;
  int limit = 50;
  std::vector<std::string> list_tags;  // list --tag KEY=VALUE
  std::string name_glob;               // list --name GLOB
  std::vector<std::string> metric_names;
  std::vector<std::string> values;  // infer: one sample per --values
  std::string input_name;

  CLI::App *snapshot = nullptr, *snapshot_export = nullptr,
           *snapshot_import = nullptr;
  std::string file;

  CLI::App* health = nullptr;
  CLI::App* nodes = nullptr;
  std::string service;

  CLI::App *dataset = nullptr, *dataset_upload = nullptr,
           *dataset_list = nullptr, *dataset_delete = nullptr;
  std::string path, name;
};

// Adds the commands and the global connection flags to `app`.
void AddRemoteCommands(CLI::App& app, RemoteOptions& options);

// `train` without --local: submits the job, follows it as submit --follow
// does, and with --save exports its final snapshot there.
int RunRemoteTrain(RemoteOptions& options, const TrainOptions& train,
                   bool backend_given, bool json);

// `test JOB --dataset D` without --local: a TEST job on the daemon for
// JOB's newest snapshot (an id or a unique prefix), waited for; prints what
// test --local prints.
int RunRemoteTest(RemoteOptions& options, const TestOptions& test, bool json);

// Runs the parsed remote command; -1 when none was given.
int RunRemote(RemoteOptions& options, bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_REMOTE_H_
