#include "client/export_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "client/local_data.h"
#include "client/remote_client.h"
#include "engine/interop/onnx_export.h"
#include "engine/train/checkpoint.h"

namespace webnnm::client {
namespace fs = std::filesystem;
namespace {

// Writes `bytes` to `file` whole (a temporary file renamed) or not at all.
int WriteWhole(const std::string& file, const std::string& bytes) {
  const std::string temp = file + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::cerr << "webnnmctl: cannot write '" << file << "'\n";
      fs::remove(temp);
      return kExitFailure;
    }
  }
  std::error_code ec;
  fs::rename(temp, file, ec);
  if (ec) {
    std::cerr << "webnnmctl: cannot write '" << file << "': " << ec.message()
              << "\n";
    fs::remove(temp);
    return kExitFailure;
  }
  return kExitOk;
}

// Says what was written.
int Written(const std::string& file, size_t bytes, bool json) {
  if (json) {
    std::cout << nlohmann::ordered_json{{"file", file},
                                        {"format", "onnx"},
                                        {"bytes", bytes}}
                     .dump()
              << "\n";
  } else {
    std::cout << "wrote " << file << " (ONNX, opset 17, " << bytes
              << " bytes)\n";
  }
  return kExitOk;
}

// Exports the snapshot through `model_file` (its text; empty: the
// snapshot's own model) into `file`.
int ExportTo(const train::ModelSnapshot& snapshot,
             const std::string& model_file, const std::string& file,
             bool json) {
  LoadedModel model;
  if (model_file.empty()) {
    model.source = snapshot.model_source;
    const std::string name =
        snapshot.model_file.empty() ? "model.wnm" : snapshot.model_file;
    model.check = CheckModel(name, model.source);
    if (!model.check.ok) {
      std::cerr << model.check.rendered;
      return kExitFailure;
    }
  } else {
    model = LoadModel(model_file);
    if (model.exit_code != kExitOk) return model.exit_code;
  }
  absl::StatusOr<std::string> bytes = interop::ExportOnnx(
      *model.check.dag, model_file.empty() ? snapshot.model_file : model_file,
      model.source, snapshot, {.producer_version = WEBNNM_VERSION});
  if (!bytes.ok()) {
    std::cerr << "webnnmctl: cannot export: " << bytes.status().message()
              << "\n";
    return kExitFailure;
  }
  if (int written = WriteWhole(file, *bytes); written != kExitOk) {
    return written;
  }
  return Written(file, bytes->size(), json);
}

}  // namespace

CLI::App* AddExportCommand(CLI::App& app, ExportOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Export a trained model as an ONNX file that takes raw features and "
      "answers as predict does: a job's newest snapshot, or --local "
      "--load SNAPSHOT");
  cmd->add_option("JOB_OR_MODEL", o.target,
                  "The trained job (an id or a unique prefix); with --local, "
                  "the model file (default: the snapshot's own model)");
  cmd->add_flag("--local", o.local,
                "Export a snapshot file in this process (--load)");
  cmd->add_option("--load", o.load, "--local: the snapshot to export");
  cmd->add_option("--format", o.format, "The file's format: onnx (opset 17)")
      ->check(CLI::IsMember({"onnx"}));
  cmd->add_option("-o,--output", o.file,
                  "The file to write (default: JOB.onnx, or the snapshot's "
                  "name with .onnx)");
  return cmd;
}

int RunExport(const ExportOptions& o, bool json) {
  if (o.load.empty()) {
    std::cerr << "webnnmctl: export --local needs --load SNAPSHOT\n";
    return kExitUsage;
  }
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::LoadModelSnapshot(o.load);
  if (!snapshot.ok()) return Fail(snapshot.status());
  const std::string file =
      o.file.empty() ? fs::path(o.load).replace_extension(".onnx").string()
                     : o.file;
  return ExportTo(*snapshot, o.target, file, json);
}

int RunRemoteExport(const RemoteOptions& remote, const ExportOptions& o,
                    bool json) {
  if (o.target.empty()) {
    std::cerr << "webnnmctl: export needs a JOB (or --local --load "
                 "SNAPSHOT)\n";
    return kExitUsage;
  }
  Client client(remote);
  std::string job = o.target;
  if (int resolved = ResolveJobId(client, job); resolved != 0) return resolved;
  // The daemon exports (ExportModel); the file is written here.
  v1::ExportModelRequest request;
  request.set_job_id(job);
  request.set_format(o.format);
  auto context = client.Context();
  auto reader = client.stub().ExportModel(context.get(), request);
  std::string bytes, name;
  v1::ModelChunk chunk;
  while (reader->Read(&chunk)) {
    bytes += chunk.data();
    if (name.empty()) name = chunk.file_name();
  }
  if (grpc::Status s = reader->Finish(); !s.ok()) return client.Error(s);
  const std::string file =
      o.file.empty() ? (name.empty() ? job + ".onnx" : name) : o.file;
  if (int written = WriteWhole(file, bytes); written != kExitOk) {
    return written;
  }
  return Written(file, bytes.size(), json);
}

}  // namespace webnnm::client
