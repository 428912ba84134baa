// Predict: every sample of a stored dataset through a job's newest
// snapshot, streamed back as a CSV or .npz file (engine/api/predict.h).
#include "engine/api/predict.h"
#include "engine/api/predict_output.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "server/core/dataset_source.h"
#include "server/rpc/convert.h"
#include "server/rpc/service.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {
namespace {

constexpr size_t kChunkBytes = 1 << 20;

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
        StrCat("the snapshot's model does not check:\n", webnnm::RenderedForStatus(s.check)));
  }
  return s;
}

}  // namespace

grpc::Status WebnnmService::Predict(grpc::ServerContext* context,
                                    const v1::PredictRequest* request,
                                    grpc::ServerWriter<v1::PredictChunk>* writer) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = ServableJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  if (request->format() != v1::PREDICT_FORMAT_CSV &&
      request->format() != v1::PREDICT_FORMAT_NPZ) {
    return ToGrpc(absl::InvalidArgumentError("format must be CSV or NPZ"));
  }
  absl::StatusOr<Served> served = ServedSnapshot(store_, request->job_id());
  if (!served.ok()) return ToGrpc(served.status());
  // Images resize as the job's did, or as asked.
  DataSpec spec = FromProto(request->data());
  spec.resize |= job->request.data.resize;
  absl::StatusOr<StoredData> data =
      FindStoredData(store_, who.Filter(), spec, limits_.max_dataset_bytes);
  if (!data.ok()) return ToGrpc(data.status());
  absl::StatusOr<Predictions> p =
      webnnm::Predict({.dag = &*served->check.dag,
                       .model_source = served->snapshot.model_source,
                       .snapshot = &served->snapshot,
                       .source = data->source,
                       .threads = 1});
  if (!p.ok()) {
    // Messages name the dataset, never its stored path.
    std::string message(p.status().message());
    for (size_t at = message.find(data->source.path);
         !data->source.path.empty() && at != std::string::npos;
         at = message.find(data->source.path, at + data->name.size())) {
      message.replace(at, data->source.path.size(), data->name);
    }
    return ToGrpc(absl::Status(p.status().code(), message));
  }
  const bool npz = request->format() == v1::PREDICT_FORMAT_NPZ;
  std::string bytes;
  if (npz) {
    absl::StatusOr<std::string> encoded = PredictionsNpz(*p);
    if (!encoded.ok()) return ToGrpc(encoded.status());
    bytes = *std::move(encoded);
  } else {
    bytes = PredictionsCsv(*p);
  }
  v1::PredictChunk first;
  first.set_samples(p->samples);
  for (const OutputPredictions& o : p->outputs) {
    v1::PredictedOutput* out = first.add_outputs();
    out->set_name(o.name);
    out->set_classification(o.classification);
    for (const std::string& c : o.classes) out->add_classes(c);
    out->set_units(o.units);
    out->set_sequenced(o.sequenced);
  }
  first.set_file_name(StrCat(request->job_id(), "-predictions",
                             npz ? ".npz" : ".csv"));
  first.set_content_type(npz ? "application/zip" : "text/csv");
  first.set_total_bytes(static_cast<int64_t>(bytes.size()));
  for (size_t at = 0; at < bytes.size() || at == 0; at += kChunkBytes) {
    v1::PredictChunk chunk = at == 0 ? first : v1::PredictChunk();
    chunk.set_data(bytes.substr(at, kChunkBytes));
    if (!writer->Write(chunk)) return grpc::Status::CANCELLED;
    if (bytes.empty()) break;
  }
  return grpc::Status::OK;
}

}  // namespace webnnm::server
