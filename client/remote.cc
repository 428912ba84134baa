#include "client/remote.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client/compare_command.h"
#include "client/format.h"
#include "client/job_json.h"
#include "client/remote_client.h"
#include "client/terminal.h"
#include "engine/base/strings.h"
#include "engine/data/image_folder.h"
#include "engine/train/hyperparameters_proto.h"
#include "proto/wire/names.h"
#include "proto/wire/sha256.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {
namespace {

namespace fs = std::filesystem;

// Submits o.train as a TRAIN job; `job_id` receives its id.
int Submit(Client& client, RemoteOptions& o, bool json, bool backend_given,
           std::string* job_id) {
  // Refused here as the daemon would refuse them, before any upload.
  absl::StatusOr<train::HyperparameterValues> given =
      ParseHyperparameterFlags(o.train.hyperparameters);
  if (!given.ok()) return Fail(given.status());
  if (absl::Status s = train::ResolveHyperparameters(*given).status();
      !s.ok()) {
    return Fail(s);
  }
  std::string text;
  if (!ReadWhole(o.train.file, &text)) {
    std::cerr << "webnnmctl: cannot read '" << o.train.file << "'\n";
    return 2;
  }
  v1::Dataset dataset;
  if (int code = ResolveDataset(client, o.train.data.dataset, json, &dataset);
      code != 0) {
    return code;
  }
  v1::SubmitJobRequest request;
  request.set_kind(v1::JOB_KIND_TRAIN);
  request.set_model_text(text);
  request.set_file_name(fs::path(o.train.file).filename().string());
  v1::DataSpec* data = request.mutable_data();
  data->set_dataset_id(dataset.dataset_id());
  data->set_label(o.train.data.label);
  data->set_no_header(o.train.data.no_header);
  data->set_split(o.train.data.split);
  data->set_standardize(o.train.data.standardize);
  data->set_standardization(
      static_cast<v1::Standardization>(o.train.data.standardize_mode()));
  if (o.train.data.impute_mode() != train::ImputeMode::kAuto) {
    data->set_impute(o.train.data.impute);
  }
  data->set_resize(o.train.data.resize);
  *request.mutable_hyperparameters() = train::ValuesToProto(*given);
  if (backend_given) request.set_backend(o.train.backend);
  request.set_idempotency_key(o.idempotency_key);
  request.set_name(o.run_name);
  request.set_note(o.note);
  for (const std::string& tag : o.tags) {
    std::string key, value;
    if (!SplitTag(tag, &key, &value)) {
      std::cerr << "webnnmctl: --tag takes KEY=VALUE, not '" << tag << "'\n";
      return 2;
    }
    (*request.mutable_tags())[key] = value;
  }
  v1::SubmitJobResponse response;
  grpc::Status s =
      client.stub().SubmitJob(client.Context().get(), request, &response);
  if (!s.ok() && s.error_code() == grpc::StatusCode::INVALID_ARGUMENT &&
      s.error_message().starts_with("the model does not check")) {
    // The status holds the first diagnostics only (it travels as
    // metadata): CheckModel's body has them all.
    v1::CheckModelRequest check;
    check.set_model_text(text);
    check.set_file_name(request.file_name());
    v1::CheckModelResponse checked;
    if (client.stub()
            .CheckModel(client.Context().get(), check, &checked)
            .ok() &&
        !checked.rendered().empty()) {
      std::cerr << "webnnmctl: the model does not check:\n"
                << checked.rendered();
      return 1;
    }
  }
  if (!s.ok()) return client.Error(s);
  if (json) {
    std::cout << Json{{"jobId", response.job().job_id()}}.dump() << "\n";
  } else {
    std::cout << (response.existing() ? "existing job " : "submitted job ")
              << response.job().job_id() << "\n";
  }
  *job_id = response.job().job_id();
  return 0;
}

}  // namespace

int RunRemoteTrain(RemoteOptions& o, const TrainOptions& train,
                   bool backend_given, bool json) {
  if (!train.resume.empty() || train.stop_after_epoch > 0) {
    std::cerr << "webnnmctl: --resume and --stop-after-epoch are for train "
                 "--local; a daemon's job stops with cancel and goes on "
                 "with resume\n";
    return 2;
  }
  o.train = train;
  o.run_name = train.run_name;
  o.tags = train.tags;
  o.note = train.note;
  Client client(o);
  std::string job;
  if (int code = Submit(client, o, json, backend_given, &job); code != 0) {
    return code;
  }
  const int code = Watch(client, job, 0, json, true);
  if (code == 0 && !train.save.empty()) {
    // The job's final snapshot, as snapshot export writes it.
    o.job = job;
    o.file = train.save;
    return ExportSnapshot(client, o, json);
  }
  return code;
}

int RunRemoteTest(RemoteOptions& o, const TestOptions& test, bool json) {
  if (test.file.empty() || !test.load.empty()) {
    std::cerr << "webnnmctl: test on the daemon takes the trained JOB: "
                 "webnnmctl test JOB --dataset D (or test --local --load "
                 "SNAPSHOT)\n";
    return 2;
  }
  if (test.data.dataset.empty()) {
    std::cerr << "webnnmctl: test JOB needs --dataset\n";
    return 2;
  }
  Client client(o);
  o.job = test.file;
  if (int code = ResolveJobId(client, o.job); code != 0) return code;
  v1::Dataset dataset;
  if (int code = ResolveDataset(client, test.data.dataset, json, &dataset);
      code != 0) {
    return code;
  }
  v1::SubmitJobRequest request;
  request.set_kind(v1::JOB_KIND_TEST);
  request.set_snapshot_job_id(o.job);
  v1::DataSpec* data = request.mutable_data();
  data->set_dataset_id(dataset.dataset_id());
  data->set_label(test.data.label);
  data->set_no_header(test.data.no_header);
  data->set_split(test.all ? std::string("0,0,100") : test.data.split);
  data->set_resize(test.data.resize);
  absl::StatusOr<train::HyperparameterValues> given =
      ParseHyperparameterFlags(test.hyperparameters);
  if (!given.ok()) return Fail(given.status());
  *request.mutable_hyperparameters() = train::ValuesToProto(*given);
  if (test.backend_given) request.set_backend(test.backend);
  v1::SubmitJobResponse response;
  grpc::Status s =
      client.stub().SubmitJob(client.Context().get(), request, &response);
  if (!s.ok()) return client.Error(s);
  const std::string job = response.job().job_id();
  if (!json) std::cout << "submitted test job " << job << "\n";
  // Quietly to its end, then the figures as test --local prints them.
  std::unique_ptr<grpc::ClientContext> context = client.Context(false);
  v1::WatchJobRequest watch;
  watch.set_job_id(job);
  auto reader = client.stub().WatchJob(context.get(), watch);
  v1::JobEvent e;
  std::optional<v1::TestEvent> tested;
  std::string error;
  while (reader->Read(&e)) {
    if (e.has_test()) tested = e.test();
    if (e.has_error()) error = e.error();
  }
  s = reader->Finish();
  if (!s.ok()) return client.Error(s);
  if (!tested) {
    std::cerr << "webnnmctl: test job " << job << " failed"
              << (error.empty() ? std::string() : ": " + error) << "\n";
    return 1;
  }
  if (json) {
    Json result;
    result["jobId"] = job;
    result["samples"] = tested->samples();
    v1::JobEvent test_event;
    *test_event.mutable_test() = *tested;
    Json figures = EventJson(test_event);
    for (const char* key :
         {"testLoss", "testAccuracy", "outputs", "testMetrics"}) {
      result[key] = figures[key];
    }
    std::cout << result.dump() << "\n";
  } else {
    std::cout << "test: " << tested->samples() << " samples";
    if (tested->has_test_loss()) {
      std::cout << ", loss " << Fixed(tested->test_loss(), 4);
    }
    if (tested->has_test_accuracy()) {
      std::cout << ", accuracy " << Fixed(tested->test_accuracy(), 4);
    }
    std::cout << "\n";
  }
  return 0;
}

namespace {

// `dataset upload|list|delete`.
void AddDatasetCommands(CLI::App& app, RemoteOptions& o) {
  o.dataset = app.add_subcommand("dataset", "Upload, list or delete datasets");
  o.dataset->require_subcommand(1);
  o.dataset->fallthrough();
  o.dataset_upload = o.dataset->add_subcommand(
      "upload",
      "Upload a CSV file, an IDX folder, a NumPy .npz, or an image folder "
      "(zipped on the way; or a .zip of one), once per content");
  o.dataset_upload
      ->add_option("PATH", o.path,
                   "The CSV file, IDX folder, .npz, image folder or .zip")
      ->required();
  o.dataset_upload->add_option("--name", o.name,
                               "Its name (default: the file's)");
  o.dataset_upload->fallthrough();
  o.dataset_list = o.dataset->add_subcommand("list", "List your datasets");
  o.dataset_list->fallthrough();
  o.dataset_delete = o.dataset->add_subcommand(
      "delete",
      "Delete a dataset (refused while a queued or running job needs it)");
  o.dataset_delete
      ->add_option("DATASET", o.path, "The dataset's id or a unique prefix")
      ->required();
  o.dataset_delete->fallthrough();
}

}  // namespace

void AddRemoteCommands(CLI::App& app, RemoteOptions& o) {
  app.add_option("--server", o.server,
                 "webnnmd's address (env WEBNNM_SERVER; default "
                 "127.0.0.1:50051)");
  app.add_option("--token", o.token, "Bearer token (env WEBNNM_TOKEN)");
  app.add_option("--ca", o.ca, "Use TLS, trusting this root certificate");

  o.submit = app.add_subcommand("submit", "Submit a training job to webnnmd");
  o.submit->add_option("FILE", o.train.file, "The model file (.wnm)")
      ->required();
  AddTrainFlags(*o.submit, o.train);
  AddResizeFlag(*o.submit, o.train.data);
  o.submit->add_option("--idempotency-key", o.idempotency_key,
                       "Submitting again with this key returns the first job");
  o.submit->add_option("--name", o.run_name,
                       "The run's name (default: the model's name)");
  o.submit->add_option("--tag", o.tags, "A tag KEY=VALUE (repeat for more)");
  o.submit->add_option("--note", o.note, "A note on the run");
  o.submit->add_flag("-f,--follow", o.follow,
                     "Then follow the job's events until it ends (as watch; "
                     "the exit code is watch's)");

  auto job_command = [&](const char* name, const char* help) {
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("JOB", o.job,
                    "The job: its id, alias, name or an id's unique start")
        ->required();
    cmd->fallthrough();
    return cmd;
  };
  o.watch = job_command("watch", "Follow a job's events until it ends");
  o.watch->add_option("--from-seq", o.from_seq,
                      "The first event to show (default: the first)");
  o.logs = job_command("logs", "Print a job's events so far");
  o.logs->add_option("--from-seq", o.from_seq, "The first event to show");
  o.logs->add_flag("-f,--follow", o.follow,
                   "Go on showing events until the job ends (as watch)");
  o.get = job_command("get", "Show a job");
  o.cancel = job_command("cancel",
                         "Cancel a job (a running one stops at the end of "
                         "its epoch: cancel waits for that)");
  o.cancel->add_flag("--no-wait", o.no_wait,
                     "Return at once, showing the job as it is");
  o.resume = job_command("resume",
                         "Queue a cancelled or failed job again, from its "
                         "last checkpoint");
  o.remove = job_command("delete", "Delete a finished job and its data");
  o.metrics = job_command("metrics", "Print a job's metrics by epoch");
  o.metrics->add_option("--name", o.metric_names,
                        "Only these metrics (trainLoss, validationLoss, lr, "
                        "samplesPerSecond)");
  o.export_metrics = job_command(
      "export-metrics",
      "Write a job's metrics as a TensorBoard event file (one scalar per "
      "metric per epoch)");
  o.export_metrics
      ->add_option("--tensorboard", o.file,
                   "The folder to write events.out.tfevents.* in (made when "
                   "missing): tensorboard --logdir reads it")
      ->required();
  o.infer = job_command("infer", "Run a trained job's model on samples");
  o.infer
      ->add_option("--values", o.values,
                   "One sample's features, comma-separated (repeat for a "
                   "batch)")
      ->required();
  o.infer->add_option("--input", o.input_name,
                      "The input block (default: the first)");

  o.tag = job_command("tag",
                      "Set (KEY=VALUE) or remove (KEY-) a job's tags, or "
                      "rename it or change its note");
  o.tag->add_option("TAGS", o.tags, "KEY=VALUE to set, KEY- to remove");
  o.tag->add_option("--name", o.run_name, "A new name");
  o.tag->add_option("--note", o.note, "A new note (\"\" removes it)");

  o.alias_cmd = job_command(
      "alias",
      "Give a job an alias that names it in every command and in KServe "
      "(moved from the job that had it; `tag JOB alias-` removes it)");
  o.alias_cmd->add_option("NAME", o.alias, "The alias (e.g. champion)")
      ->required();

  o.compare = app.add_subcommand(
      "compare",
      "Show jobs side by side: every data setting, hyperparameter and "
      "result, the rows that differ marked");
  o.compare
      ->add_option("JOBS", o.compare_jobs,
                   "Two or more jobs (ids, aliases, names or id prefixes)")
      ->required()
      ->expected(2, 64);
  o.compare->add_flag("--diff", o.only_differences,
                      "Only the rows whose values differ");
  o.compare->fallthrough();

  o.list = app.add_subcommand("list", "List jobs, newest first");
  o.list->add_option("--state", o.state,
                     "Only jobs in this state (queued, running, "
                     "succeeded, failed, cancelled; any case)");
  o.list->add_option("--tag", o.list_tags,
                     "Only jobs with this tag KEY=VALUE (repeat: all of "
                     "them)");
  o.list->add_option("--name", o.name_glob,
                     "Only jobs whose name matches this glob (* and ?)");
  o.list->add_option("--limit", o.limit, "At most this many jobs")
      ->check(CLI::Range(1, 100000));
  o.list->fallthrough();

  o.snapshot = app.add_subcommand("snapshot", "Export or import snapshots");
  o.snapshot->require_subcommand(1);
  o.snapshot->fallthrough();
  o.snapshot_export =
      o.snapshot->add_subcommand("export", "Save a job's snapshot (.wnms)");
  o.snapshot_export
      ->add_option("JOB", o.job,
                   "The job: its id, alias, name or an id's start")
      ->required();
  o.snapshot_export->add_option("-f,--file", o.file,
                                "Where to write it (default JOB.wnms)");
  o.snapshot_export->fallthrough();
  o.snapshot_import = o.snapshot->add_subcommand(
      "import", "Upload a .wnms snapshot as a finished job");
  o.snapshot_import->add_option("FILE", o.file, "The snapshot")->required();
  o.snapshot_import->fallthrough();

  o.health = app.add_subcommand(
      "health", "Ask webnnmd's grpc.health.v1 service (exit 0: serving)");
  o.health->add_option("--service", o.service,
                       "A service (default: the whole server)");
  o.health->fallthrough();

  o.nodes = app.add_subcommand(
      "nodes",
      "List the live daemons of webnnmd's store (a cluster's, or the one) "
      "and the jobs they run");
  o.nodes->fallthrough();

  AddDatasetCommands(app, o);
}

int RunRemote(RemoteOptions& o, bool json) {
  Client client(o);
  if (*o.submit) {
    std::string job;
    int code = Submit(client, o, json, o.submit->count("--backend") > 0, &job);
    if (code != 0 || !o.follow) return code;
    return Watch(client, job, 0, json, true);
  }
  // A job named by its id, an alias, its name or a prefix of its id.
  for (CLI::App* cmd :
       {o.watch, o.logs, o.get, o.cancel, o.resume, o.remove, o.metrics,
        o.infer, o.tag, o.alias_cmd, o.export_metrics, o.snapshot_export}) {
    if (*cmd) {
      if (int code = ResolveJobId(client, o.job); code != 0) return code;
    }
  }
  if (*o.compare) {
    std::vector<v1::Job> jobs;
    for (std::string id : o.compare_jobs) {
      if (int code = ResolveJobId(client, id); code != 0) return code;
      v1::GetJobRequest get;
      get.set_job_id(id);
      v1::Job job;
      grpc::Status s = client.stub().GetJob(client.Context().get(), get, &job);
      if (!s.ok()) return client.Error(s);
      jobs.push_back(std::move(job));
    }
    PrintComparison(jobs, o.only_differences, json);
    return 0;
  }
  if (*o.export_metrics) return ExportMetrics(client, o, json);
  if (*o.tag) return Tag(client, o, json);
  if (*o.alias_cmd) return Alias(client, o, json);
  if (*o.watch) return Watch(client, o.job, o.from_seq, json, true);
  if (*o.logs) return Watch(client, o.job, o.from_seq, json, o.follow);
  if (*o.get || *o.cancel || *o.resume || *o.remove) {
    return JobCall(client, o, json);
  }
  if (*o.list) return List(client, o, json);
  if (*o.health) return Health(client, o, json);
  if (*o.nodes) return Nodes(client, json);
  if (*o.metrics) return Metrics(client, o, json);
  if (*o.infer) return Infer(client, o, json);
  if (*o.snapshot_export) return ExportSnapshot(client, o, json);
  if (*o.snapshot_import) return ImportSnapshot(client, o, json);
  if (*o.dataset_upload) {
    v1::Dataset d;
    int code = UploadDataset(client, o.path, o.name, json, &d);
    if (code != 0) return code;
    if (json) {
      std::cout << DatasetJson(d).dump() << "\n";
    } else {
      std::cout << "dataset " << d.dataset_id() << " (" << d.name() << ", "
                << d.bytes() << " bytes)\n";
    }
    return 0;
  }
  if (*o.dataset_delete) {
    v1::Dataset found;
    if (int code = FindDatasetById(
            client, o.path, "is not the id of a dataset on the daemon", &found);
        code != 0) {
      return code;
    }
    v1::DeleteDatasetRequest r;
    r.set_dataset_id(found.dataset_id());
    v1::DeleteDatasetResponse response;
    grpc::Status s =
        client.stub().DeleteDataset(client.Context().get(), r, &response);
    if (!s.ok()) return client.Error(s);
    if (json) {
      std::cout << Json{{"datasetId", r.dataset_id()}, {"deleted", true}}.dump()
                << "\n";
    } else {
      std::cout << "deleted dataset " << r.dataset_id() << "\n";
    }
    return 0;
  }
  if (*o.dataset_list) {
    v1::ListDatasetsResponse response;
    grpc::Status s = client.stub().ListDatasets(
        client.Context().get(), v1::ListDatasetsRequest(), &response);
    if (!s.ok()) return client.Error(s);
    if (json) {
      Json list = Json::array();
      for (const v1::Dataset& d : response.datasets()) {
        list.push_back(DatasetJson(d));
      }
      std::cout << Json{{"datasets", list}}.dump() << "\n";
    } else {
      std::vector<std::vector<std::string>> rows = {
          {"DATASET", "NAME", "FORMAT", "ROWS", "COLUMNS", "BYTES", "CREATED",
           "HEADER"}};
      for (const v1::Dataset& d : response.datasets()) {
        std::string header;
        for (const std::string& h : d.header()) {
          header += (header.empty() ? "" : ",") + h;
        }
        rows.push_back({d.dataset_id(), d.name(), wire::FormatName(d.format()),
                        d.has_rows() ? std::to_string(d.rows()) : "-",
                        d.has_columns() ? std::to_string(d.columns()) : "-",
                        std::to_string(d.bytes()),
                        TimeText(d.created()).substr(0, 19),
                        header.empty() ? "-" : Cut(header, 60)});
      }
      std::cout << Table(rows);
    }
    return 0;
  }
  return -1;
}

}  // namespace webnnm::client
