// InitModel: a starter model for a stored dataset (the engine's
// expert/starter_model.h) — authenticate, find the dataset, write the
// model, answer.
#include <filesystem>

#include "engine/expert/starter_model.h"
#include "server/core/dataset_source.h"
#include "server/rpc/convert.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {

grpc::Status WebnnmService::InitModel(grpc::ServerContext* context,
                                      const v1::InitModelRequest* request,
                                      v1::InitModelResponse* response) {
  AUTHENTICATE(who);
  DataSpec spec;
  spec.dataset_id = request->dataset_id();
  spec.label = request->label();
  spec.no_header = request->no_header();
  absl::StatusOr<StoredData> data = FindStoredData(
      store_, who.Filter(), spec, limits_.max_dataset_bytes);
  if (!data.ok()) return ToGrpc(data.status());
  const std::string stem = std::filesystem::path(data->name).stem().string();
  absl::StatusOr<train::StarterModel> model = train::WriteStarterModel(
      data->source.path,
      {.label = request->label(),
       .name = request->name().empty() ? stem : request->name(),
       .no_header = request->no_header(),
       .shown_as = data->name});
  if (!model.ok()) {
    // Data the starter cannot model is the request's: its message names the
    // dataset, never the store's path.
    std::string message(model.status().message());
    for (size_t at = message.find(data->source.path); at != std::string::npos;
         at = message.find(data->source.path, at)) {
      message.replace(at, data->source.path.size(), data->name);
    }
    return ToGrpc(absl::InvalidArgumentError(message));
  }
  response->set_model_text(model->text);
  response->set_label(model->label);
  for (const std::string& note : model->notes) response->add_notes(note);
  return grpc::Status::OK;
}

}  // namespace webnnm::server
