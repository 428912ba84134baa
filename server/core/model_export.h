// A finished job's model as a file another runtime reads: what the
// ExportModel RPC (and `webnnmctl export JOB`, the browser's "Download
// ONNX") serve. The job's newest snapshot, through the model text it
// holds, exported by engine/interop (docs/interop.md).
#ifndef WEBNNM_SERVER_CORE_MODEL_EXPORT_H_
#define WEBNNM_SERVER_CORE_MODEL_EXPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "server/core/principal.h"
#include "server/core/store.h"

namespace webnnm::server {

struct ExportedModelFile {
  std::string bytes;
  std::string file_name;  // JOB.onnx
};

// NotFound for a job `who` may not see; FailedPrecondition for one that is
// not a finished training job (or an imported snapshot), or whose model
// has an operation without an ONNX form (naming it, its line and layer);
// InvalidArgument for a format other than "onnx" ("" is "onnx"); DataLoss
// for a damaged snapshot.
absl::StatusOr<ExportedModelFile> ExportedModel(Store& store,
                                                const Principal& who,
                                                const std::string& id,
                                                const std::string& format,
                                                const std::string& version);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_MODEL_EXPORT_H_
