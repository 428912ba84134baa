// InitModel: a starter model for a stored dataset (core/admission.h over
// the engine's expert/starter_model.h).
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
  absl::StatusOr<train::StarterModel> model =
      admission_.Starter(who, spec, request->name());
  if (!model.ok()) return ToGrpc(model.status());
  response->set_model_text(model->text);
  response->set_label(model->label);
  for (const std::string& note : model->notes) response->add_notes(note);
  return grpc::Status::OK;
}

}  // namespace webnnm::server
