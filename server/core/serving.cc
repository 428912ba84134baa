#include "server/core/serving.h"

#include <optional>
#include <utility>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "server/core/access.h"
#include "server/core/dataset_source.h"

namespace webnnm::server {
namespace {

// The job's newest snapshot and its model, checked.
struct Served {
  train::ModelSnapshot snapshot;
  CheckResult check;
};

absl::StatusOr<Served> ServedSnapshot(Store& store, const std::string& id) {
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob, store.LatestSnapshot(id));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", id, " has no snapshot to predict with yet"));
  }
  Served s;
  ASSIGN_OR_RETURN(s.snapshot, train::DecodeModelSnapshot(blob->bytes));
  s.check = CheckModel(
      s.snapshot.model_file.empty() ? "model.wnm" : s.snapshot.model_file,
      s.snapshot.model_source);
  if (!s.check.ok || !s.check.dag) {
    return absl::DataLossError(
        StrCat("the snapshot's model does not check:\n",
               webnnm::RenderedForStatus(s.check)));
  }
  return s;
}

// `status` with every mention of `path` replaced by `name`.
absl::Status Renamed(const absl::Status& status, const std::string& path,
                     const std::string& name) {
  std::string message(status.message());
  for (size_t at = message.find(path);
       !path.empty() && at != std::string::npos;
       at = message.find(path, at + name.size())) {
    message.replace(at, path.size(), name);
  }
  return absl::Status(status.code(), message);
}

}  // namespace

absl::StatusOr<std::shared_ptr<ServedModel>> ServedModelOf(
    InferenceCache& cache, Store& store, const Principal& who,
    const std::string& id) {
  std::shared_ptr<ServedModel> model = cache.Finished(
      id, [&who](const std::string& owner) { return who.Owns(owner); });
  if (model) return model;
  ASSIGN_OR_RETURN(StoredJob job, ServableJob(store, who, id));
  return cache.Get(store, job.job);
}

absl::StatusOr<Predictions> PredictWithJob(Store& store, const Principal& who,
                                           const std::string& id,
                                           DataSpec data,
                                           int64_t max_dataset_bytes) {
  ASSIGN_OR_RETURN(StoredJob job, ServableJob(store, who, id));
  ASSIGN_OR_RETURN(Served served, ServedSnapshot(store, id));
  // Images resize as the job's did, or as asked.
  data.resize |= job.request.data.resize;
  ASSIGN_OR_RETURN(StoredData stored, FindStoredData(store, who.Filter(), data,
                                                     max_dataset_bytes));
  absl::StatusOr<Predictions> p =
      webnnm::Predict({.dag = &*served.check.dag,
                       .model_source = served.snapshot.model_source,
                       .snapshot = &served.snapshot,
                       .source = stored.source,
                       .threads = 1});
  if (!p.ok()) return Renamed(p.status(), stored.source.path, stored.name);
  return p;
}

}  // namespace webnnm::server
