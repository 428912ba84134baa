#include "server/core/model_export.h"

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/interop/onnx_export.h"
#include "engine/train/checkpoint.h"
#include "server/core/access.h"

namespace webnnm::server {

absl::StatusOr<ExportedModelFile> ExportedModel(Store& store,
                                                const Principal& who,
                                                const std::string& id,
                                                const std::string& format,
                                                const std::string& version) {
  if (!format.empty() && format != "onnx") {
    return absl::InvalidArgumentError(
        StrCat("a model exports as onnx, not '", format, "'"));
  }
  ASSIGN_OR_RETURN(StoredJob job, ServableJob(store, who, id));
  ASSIGN_OR_RETURN(std::string bytes, ExportedSnapshot(store, who, id));
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::DecodeModelSnapshot(bytes);
  if (!snapshot.ok()) {
    return absl::DataLossError(
        StrCat("the snapshot of job ", id,
               " does not read: ", snapshot.status().message()));
  }
  const std::string file =
      snapshot->model_file.empty() ? "model.wnm" : snapshot->model_file;
  CheckResult check = CheckModel(file, snapshot->model_source);
  if (!check.ok) {
    return absl::FailedPreconditionError(
        StrCat("the model of job ", id, " no longer checks: ", check.rendered));
  }
  ASSIGN_OR_RETURN(
      std::string onnx,
      interop::ExportOnnx(*check.dag, file, snapshot->model_source, *snapshot,
                          {.producer_version = version}));
  return ExportedModelFile{.bytes = std::move(onnx),
                           .file_name = StrCat(job.job.id, ".onnx")};
}

}  // namespace webnnm::server
