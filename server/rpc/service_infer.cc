// Infer: a finished job's model on the caller's batch. On gRPC's callback
// API the handler checks the call and queues it (InferenceCache::RunAsync);
// the response is sent wherever the call runs. RunInfer does it all on the
// calling thread.
#include <memory>
#include <string>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/core/inference.h"
#include "server/rpc/service.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {

grpc::ServerUnaryReactor* WebnnmService::Infer(
    grpc::CallbackServerContext* context, const v1::InferRequest* request,
    v1::InferResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  PreparedInfer call;
  if (grpc::Status s = PrepareInfer(context, request, call); !s.ok()) {
    reactor->Finish(s);
    return reactor;
  }
  // Finished where the call runs: here, or on the thread running its batch.
  std::shared_ptr<ServedModel> model = call.model;
  InferenceCache::RunAsync(
      std::move(call.model), call.inputs, limits_.max_infer_elements,
      [reactor, response, model = std::move(model)](
          absl::StatusOr<std::vector<InferTensor>> outputs) {
        reactor->Finish(RespondInfer(*model, outputs, response));
      });
  return reactor;
}

grpc::Status WebnnmService::RunInfer(const grpc::ServerContextBase* context,
                                     const v1::InferRequest* request,
                                     v1::InferResponse* response) {
  PreparedInfer call;
  if (grpc::Status s = PrepareInfer(context, request, call); !s.ok()) {
    return s;
  }
  return RespondInfer(
      *call.model,
      InferenceCache::Run(*call.model, call.inputs, limits_.max_infer_elements),
      response);
}

absl::StatusOr<StoredJob> WebnnmService::ServableJob(const Principal& who,
                                                     const std::string& id) {
  ASSIGN_OR_RETURN(StoredJob job, VisibleJob(who, id));
  if (job.job.state != JobState::kSucceeded || job.job.kind == JobKind::kTest) {
    return absl::FailedPreconditionError(
        StrCat("job ", id,
               " is not a finished training job (or an imported snapshot)"));
  }
  return job;
}

grpc::Status WebnnmService::PrepareInfer(const grpc::ServerContextBase* context,
                                         const v1::InferRequest* request,
                                         PreparedInfer& call) {
  AUTHENTICATE(who);
  std::shared_ptr<ServedModel> model = inference_.Finished(
      request->job_id(),
      [&who](const std::string& owner) { return who.Owns(owner); });
  if (!model) {
    absl::StatusOr<StoredJob> job = ServableJob(who, request->job_id());
    if (!job.ok()) return ToGrpc(job.status());
    absl::StatusOr<std::shared_ptr<ServedModel>> got =
        inference_.Get(store_, job->job);
    if (!got.ok()) return ToGrpc(got.status());
    model = *std::move(got);
  }
  call.model = std::move(model);
  std::vector<InferTensor> inputs;
  int64_t elements = 0;
  for (const v1::Tensor& t : request->inputs()) {
    InferTensor in{t.name(), {t.shape().begin(), t.shape().end()}, {}};
    const std::string type = t.data_type().empty() ? "float32" : t.data_type();
    if (!t.raw().empty() && t.values_size() > 0) {
      return ToGrpc(absl::InvalidArgumentError(
          StrCat("input '", t.name(), "': give its values or raw, not both")));
    }
    // The type names the values' type (raw: their encoding): a numeric
    // one. (Decoding no bytes checks the name alone.)
    if (absl::Status known = DecodeRaw(type, "").status(); !known.ok()) {
      return ToGrpc(absl::InvalidArgumentError(StrCat(
          "input '", t.name(), "': data_type '", type.substr(0, 40),
          "' is not a numeric type (float32, float16, float64, int8..int64, "
          "uint8..uint64, bool)")));
    }
    if (!t.raw().empty()) {
      absl::StatusOr<std::vector<double>> values = DecodeRaw(type, t.raw());
      if (!values.ok()) {
        return ToGrpc(absl::InvalidArgumentError(
            StrCat("input '", t.name(), "': ", values.status().message())));
      }
      elements += static_cast<int64_t>(values->size());
      if (elements > limits_.max_infer_elements) break;
      in.values = std::move(*values);
    } else {
      elements += t.values_size();
      if (elements > limits_.max_infer_elements) break;
      in.values.assign(t.values().begin(), t.values().end());
    }
    inputs.push_back(std::move(in));
  }
  if (elements > limits_.max_infer_elements) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat("the inputs have more than ", limits_.max_infer_elements,
               " elements (the daemon's limit)")));
  }
  call.inputs = std::move(inputs);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::RespondInfer(
    const ServedModel& model,
    const absl::StatusOr<std::vector<InferTensor>>& outputs,
    v1::InferResponse* response) {
  if (!outputs.ok()) return ToGrpc(outputs.status());
  for (const InferTensor& o : *outputs) {
    v1::Tensor* t = response->add_outputs();
    t->set_name(o.name);
    t->set_data_type("float32");
    for (int64_t e : o.shape) t->add_shape(e);
    for (double v : o.values) t->add_values(v);
  }
  for (const std::string& c : InferenceCache::Classes(model)) {
    response->add_classes(c);
  }
  return grpc::Status::OK;
}

}  // namespace webnnm::server
