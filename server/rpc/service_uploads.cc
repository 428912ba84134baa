// The webnnm.v1 service's datasets, uploads and downloads: UploadDataset
// and ImportSnapshot (chunks of one protocol: core/uploads.h),
// ListDatasets, DeleteDataset, ExportSnapshot and ExportModel.
#include <functional>
#include <string>
#include <vector>

#include "server/convert/convert.h"
#include "server/core/access.h"
#include "server/core/model_export.h"
#include "server/rpc/service.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {

grpc::Status WebnnmService::UploadDataset(
    grpc::ServerContext* context, const v1::UploadDatasetRequest* request,
    v1::UploadDatasetResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<DatasetUploaded> made = uploads_.DatasetChunk(
      who, {.upload_id = request->upload_id(),
            .name = request->name(),
            .format = static_cast<DatasetFormat>(request->format()),
            .sha256 = request->sha256(),
            .total_bytes = request->total_bytes(),
            .file_name = request->file_name(),
            .offset = request->offset(),
            .data = request->data(),
            .finish = request->finish()});
  if (!made.ok()) return ToGrpc(made.status());
  response->set_upload_id(made->upload_id);
  if (made->dataset) *response->mutable_dataset() = ToProto(*made->dataset);
  response->set_existing(made->existing);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ListDatasets(grpc::ServerContext* context,
                                         const v1::ListDatasetsRequest*,
                                         v1::ListDatasetsResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<std::vector<Dataset>> list = store_.ListDatasets(who.Filter());
  if (!list.ok()) return ToGrpc(list.status());
  for (const Dataset& d : *list) *response->add_datasets() = ToProto(d);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::DeleteDataset(
    grpc::ServerContext* context, const v1::DeleteDatasetRequest* request,
    v1::DeleteDatasetResponse*) {
  AUTHENTICATE(who);
  return ToGrpc(uploads_.DeleteDataset(who, request->dataset_id()));
}

namespace {

// `bytes` in chunks of 1 MiB (one empty chunk for none), each made by
// `chunk` (the data and total set here).
template <typename Chunk>
grpc::Status WriteChunks(const std::string& bytes,
                         grpc::ServerWriter<Chunk>* writer,
                         const std::function<void(Chunk&)>& fill = nullptr) {
  const size_t size = 1 << 20;
  for (size_t at = 0; at < bytes.size() || at == 0; at += size) {
    Chunk c;
    c.set_total_bytes(static_cast<int64_t>(bytes.size()));
    c.set_data(bytes.substr(at, size));
    if (fill) fill(c);
    if (!writer->Write(c)) return grpc::Status::CANCELLED;
    if (bytes.empty()) break;
  }
  return grpc::Status::OK;
}

}  // namespace

grpc::Status WebnnmService::ExportSnapshot(
    grpc::ServerContext* context, const v1::ExportSnapshotRequest* request,
    grpc::ServerWriter<v1::SnapshotChunk>* writer) {
  AUTHENTICATE(who);
  absl::StatusOr<std::string> bytes =
      ExportedSnapshot(store_, who, request->job_id());
  if (!bytes.ok()) return ToGrpc(bytes.status());
  return WriteChunks(*bytes, writer);
}

grpc::Status WebnnmService::ExportModel(
    grpc::ServerContext* context, const v1::ExportModelRequest* request,
    grpc::ServerWriter<v1::ModelChunk>* writer) {
  AUTHENTICATE(who);
  absl::StatusOr<ExportedModelFile> file = ExportedModel(
      store_, who, request->job_id(), request->format(), WEBNNM_VERSION);
  if (!file.ok()) return ToGrpc(file.status());
  return WriteChunks<v1::ModelChunk>(
      file->bytes, writer, [&](auto& c) { c.set_file_name(file->file_name); });
}

grpc::Status WebnnmService::ImportSnapshot(
    grpc::ServerContext* context, const v1::ImportSnapshotRequest* request,
    v1::ImportSnapshotResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<SnapshotUploaded> made =
      uploads_.SnapshotChunk(who, {.upload_id = request->upload_id(),
                                   .sha256 = request->sha256(),
                                   .total_bytes = request->total_bytes(),
                                   .offset = request->offset(),
                                   .data = request->data(),
                                   .finish = request->finish()});
  if (!made.ok()) return ToGrpc(made.status());
  response->set_upload_id(made->upload_id);
  if (made->job) *response->mutable_job() = ToProto(*made->job);
  return grpc::Status::OK;
}

}  // namespace webnnm::server
