// `webnnmctl export JOB --format onnx [-o FILE.onnx]` and `webnnmctl export
// --local [MODEL] --load SNAPSHOT --format onnx [-o FILE.onnx]`: a trained
// model as an ONNX file (engine/interop/onnx_export.h) that takes raw
// features and answers as `predict` does (docs/interop.md). With a job,
// the daemon exports it (ExportModel: a finished job's newest snapshot)
// and the file is written here; with --local, MODEL defaults to the
// snapshot's own model. The file is written whole or not at all (default
// JOB.onnx, or the snapshot's name with .onnx). Exit 0 written, 1 refused
// (an operation without an ONNX form, named with its line), 2 usage.
#ifndef WEBNNM_CLIENT_EXPORT_COMMAND_H_
#define WEBNNM_CLIENT_EXPORT_COMMAND_H_

#include <string>

#include <CLI/CLI.hpp>

#include "client/remote.h"

namespace webnnm::client {

struct ExportOptions {
  std::string target;  // the job (or --local: the model file, optional)
  bool local = false;
  std::string load;
  std::string format = "onnx";
  std::string file;  // -o, --output
};

CLI::App* AddExportCommand(CLI::App& app, ExportOptions& options);

// Returns the exit code.
int RunExport(const ExportOptions& options, bool json);
int RunRemoteExport(const RemoteOptions& remote, const ExportOptions& options,
                    bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_EXPORT_COMMAND_H_
