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
#include "server/core/serving.h"
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

namespace {

// The call's inputs as the model takes them: each one's values or raw
// bytes (of its data_type) decoded; at most `max_elements` in all.
absl::StatusOr<std::vector<InferTensor>> Inputs(
    const v1::InferRequest& request, int64_t max_elements) {
  std::vector<InferTensor> inputs;
  int64_t elements = 0;
  for (const v1::Tensor& t : request.inputs()) {
    InferTensor in{t.name(), {t.shape().begin(), t.shape().end()}, {}};
    const std::string type = t.data_type().empty() ? "float32" : t.data_type();
    if (!t.raw().empty() && t.values_size() > 0) {
      return absl::InvalidArgumentError(
          StrCat("input '", t.name(), "': give its values or raw, not both"));
    }
    // The type names the values' type (raw: their encoding): a numeric
    // one. (Decoding no bytes checks the name alone.)
    if (absl::Status known = DecodeRaw(type, "").status(); !known.ok()) {
      return absl::InvalidArgumentError(StrCat(
          "input '", t.name(), "': data_type '", type.substr(0, 40),
          "' is not a numeric type (float32, float16, float64, int8..int64, "
          "uint8..uint64, bool)"));
    }
    if (!t.raw().empty()) {
      absl::StatusOr<std::vector<double>> values = DecodeRaw(type, t.raw());
      if (!values.ok()) {
        return absl::InvalidArgumentError(
            StrCat("input '", t.name(), "': ", values.status().message()));
      }
      elements += static_cast<int64_t>(values->size());
      if (elements > max_elements) break;
      in.values = std::move(*values);
    } else {
      elements += t.values_size();
      if (elements > max_elements) break;
      in.values.assign(t.values().begin(), t.values().end());
    }
    inputs.push_back(std::move(in));
  }
  if (elements > max_elements) {
    return absl::ResourceExhaustedError(
        StrCat("the inputs have more than ", max_elements,
               " elements (the daemon's limit)"));
  }
  return inputs;
}

}  // namespace

grpc::Status WebnnmService::PrepareInfer(const grpc::ServerContextBase* context,
                                         const v1::InferRequest* request,
                                         PreparedInfer& call) {
  AUTHENTICATE(who);
  absl::StatusOr<std::shared_ptr<ServedModel>> model =
      ServedModelOf(inference_, store_, who, request->job_id());
  if (!model.ok()) return ToGrpc(model.status());
  call.model = *std::move(model);
  absl::StatusOr<std::vector<InferTensor>> inputs =
      Inputs(*request, limits_.max_infer_elements);
  if (!inputs.ok()) return ToGrpc(inputs.status());
  call.inputs = *std::move(inputs);
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
