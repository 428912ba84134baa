// Predict: every sample of a stored dataset through a job's newest
// snapshot (core/serving.h), streamed back as a CSV or .npz file.
#include <string>
#include <utility>

#include "engine/api/predict_output.h"
#include "server/convert/answers.h"
#include "server/convert/convert.h"
#include "server/core/serving.h"
#include "server/rpc/service.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {
namespace {

constexpr size_t kChunkBytes = 1 << 20;

// The predictions as a file's bytes: a CSV, or an .npz archive.
absl::StatusOr<std::string> Encoded(const Predictions& p, bool npz) {
  if (npz) return PredictionsNpz(p);
  return PredictionsCsv(p);
}

}  // namespace

grpc::Status WebnnmService::Predict(grpc::ServerContext* context,
                                    const v1::PredictRequest* request,
                                    grpc::ServerWriter<v1::PredictChunk>* writer) {
  AUTHENTICATE(who);
  if (request->format() != v1::PREDICT_FORMAT_CSV &&
      request->format() != v1::PREDICT_FORMAT_NPZ) {
    return ToGrpc(absl::InvalidArgumentError("format must be CSV or NPZ"));
  }
  absl::StatusOr<Predictions> p =
      PredictWithJob(store_, who, request->job_id(), FromProto(request->data()),
                     limits_.max_dataset_bytes);
  if (!p.ok()) return ToGrpc(p.status());
  const bool npz = request->format() == v1::PREDICT_FORMAT_NPZ;
  absl::StatusOr<std::string> bytes = Encoded(*p, npz);
  if (!bytes.ok()) return ToGrpc(bytes.status());
  const v1::PredictChunk first = PredictHeader(
      *p, request->job_id(), npz, static_cast<int64_t>(bytes->size()));
  for (size_t at = 0; at < bytes->size() || at == 0; at += kChunkBytes) {
    v1::PredictChunk chunk = at == 0 ? first : v1::PredictChunk();
    chunk.set_data(bytes->substr(at, kChunkBytes));
    if (!writer->Write(chunk)) return grpc::Status::CANCELLED;
    if (bytes->empty()) break;
  }
  return grpc::Status::OK;
}

}  // namespace webnnm::server
