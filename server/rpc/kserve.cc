#include "server/rpc/kserve.h"

#include <cstring>
#include <map>
#include <set>

#include "engine/base/strings.h"
#include "engine/ir/dtype.h"
#include "proto/wire/names.h"
#include "server/core/access.h"
#include "server/rpc/kserve_classes.h"

namespace webnnm::server {
namespace {

// The protocol's data types and WebNN's.
const std::map<std::string, std::string, std::less<>>& Types() {
  static const auto* types =
      new std::map<std::string, std::string, std::less<>>{
          {"BOOL", "bool"},     {"UINT8", "uint8"},   {"UINT16", "uint16"},
          {"UINT32", "uint32"}, {"UINT64", "uint64"}, {"INT8", "int8"},
          {"INT16", "int16"},   {"INT32", "int32"},   {"INT64", "int64"},
          {"FP16", "float16"},  {"FP32", "float32"},  {"FP64", "float64"}};
  return *types;
}

// The typed contents of an input as doubles, for its data type.
absl::StatusOr<std::vector<double>> TypedContents(
    const inference::ModelInferRequest::InferInputTensor& t) {
  const inference::InferTensorContents& c = t.contents();
  const std::string& type = t.datatype();
  std::vector<double> v;
  if (type == "FP32") {
    v.assign(c.fp32_contents().begin(), c.fp32_contents().end());
  } else if (type == "FP64") {
    v.assign(c.fp64_contents().begin(), c.fp64_contents().end());
  } else if (type == "INT8" || type == "INT16" || type == "INT32") {
    v.assign(c.int_contents().begin(), c.int_contents().end());
  } else if (type == "INT64") {
    for (int64_t x : c.int64_contents()) v.push_back(static_cast<double>(x));
  } else if (type == "UINT8" || type == "UINT16" || type == "UINT32") {
    v.assign(c.uint_contents().begin(), c.uint_contents().end());
  } else if (type == "UINT64") {
    for (uint64_t x : c.uint64_contents()) v.push_back(static_cast<double>(x));
  } else if (type == "BOOL") {
    for (bool x : c.bool_contents()) v.push_back(x ? 1 : 0);
  } else if (type == "FP16") {
    return absl::InvalidArgumentError(
        StrCat("input '", t.name(), "': FP16 needs raw_input_contents"));
  } else {
    return absl::InvalidArgumentError(StrCat(
        "input '", t.name(), "': data type '", type, "' is not supported"));
  }
  return v;
}

}  // namespace

std::string KServeDataType(std::string_view webnn) {
  for (const auto& [kserve, name] : Types()) {
    if (name == webnn) return kserve;
  }
  return "BYTES";
}

grpc::Status KServeService::ServerLive(
    grpc::ServerContext* context, const inference::ServerLiveRequest*,
    inference::ServerLiveResponse* response) {
  absl::StatusOr<Principal> who = tokens_.Authenticate(*context);
  if (!who.ok()) return ToGrpc(who.status());
  response->set_live(true);
  return grpc::Status::OK;
}

grpc::Status KServeService::ServerReady(
    grpc::ServerContext* context, const inference::ServerReadyRequest*,
    inference::ServerReadyResponse* response) {
  absl::StatusOr<Principal> who = tokens_.Authenticate(*context);
  if (!who.ok()) return ToGrpc(who.status());
  response->set_ready(true);
  return grpc::Status::OK;
}

grpc::Status KServeService::ServerMetadata(
    grpc::ServerContext* context, const inference::ServerMetadataRequest*,
    inference::ServerMetadataResponse* response) {
  absl::StatusOr<Principal> who = tokens_.Authenticate(*context);
  if (!who.ok()) return ToGrpc(who.status());
  response->set_name("webnnmd");
  response->set_version(WEBNNM_VERSION);
  return grpc::Status::OK;
}

absl::StatusOr<std::shared_ptr<ServedModel>> KServeService::Model(
    const grpc::ServerContextBase& context, const std::string& name,
    const std::string& version) {
  absl::StatusOr<Principal> who = tokens_.Authenticate(context);
  if (!who.ok()) return who.status();
  if (!version.empty() && version != "1") {
    return absl::NotFoundError(
        StrCat("model ", name, " has no version '", version, "' (only 1)"));
  }
  if (std::shared_ptr<ServedModel> finished = inference_.Finished(
          name,
          [&who](const std::string& owner) { return who->Owns(owner); })) {
    return finished;
  }
  // A model is named by its job's id, alias, name or an id's prefix.
  absl::StatusOr<std::string> id = ResolveJobRef(store_, *who, name);
  if (absl::IsNotFound(id.status())) {
    return absl::NotFoundError(StrCat("no model ", name));
  }
  if (!id.ok()) return id.status();
  absl::StatusOr<std::optional<StoredJob>> job = store_.GetJob(*id);
  if (!job.ok()) return job.status();
  if (!*job || !who->Owns((*job)->job.principal)) {
    return absl::NotFoundError(StrCat("no model ", name));
  }
  const Job& j = (*job)->job;
  if (j.state != JobState::kSucceeded || j.kind == JobKind::kTest) {
    return absl::UnavailableError(StrCat(
        "model ", name, " is not ready (its job is ", StateName(j.state), ")"));
  }
  return inference_.Get(store_, j);
}

grpc::Status KServeService::ModelReady(
    grpc::ServerContext* context, const inference::ModelReadyRequest* request,
    inference::ModelReadyResponse* response) {
  absl::StatusOr<std::shared_ptr<ServedModel>> model =
      Model(*context, request->name(), request->version());
  if (absl::IsUnavailable(model.status())) {
    response->set_ready(false);
    return grpc::Status::OK;
  }
  if (!model.ok()) return ToGrpc(model.status());
  response->set_ready(true);
  return grpc::Status::OK;
}

grpc::Status KServeService::ModelMetadata(
    grpc::ServerContext* context,
    const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  absl::StatusOr<std::shared_ptr<ServedModel>> model =
      Model(*context, request->name(), request->version());
  if (!model.ok()) return ToGrpc(model.status());
  const ModelSummary& summary = InferenceCache::Summary(**model);
  response->set_name(request->name());
  static const std::string* const kVersion = new std::string("1");
  response->add_versions(*kVersion);
  response->set_platform("webnnm");
  for (const TensorSummary& t : summary.inputs) {
    auto* m = response->add_inputs();
    m->set_name(t.name);
    m->set_datatype(KServeDataType(ir::DTypeName(t.dtype)));
    m->add_shape(-1);
    for (int64_t e : t.shape) m->add_shape(e);
  }
  const std::vector<std::string>& classes = InferenceCache::Classes(**model);
  for (const TensorSummary& t : summary.outputs) {
    auto* m = response->add_outputs();
    m->set_name(t.name);
    m->set_datatype("FP32");
    m->add_shape(-1);
    for (int64_t e : t.shape) m->add_shape(e);
    if (!HasClassNames(t.shape, classes)) continue;
    auto* names = response->add_outputs();
    names->set_name(ClassOutputName(t.name));
    names->set_datatype("BYTES");
    names->add_shape(-1);
    for (size_t i = 0; i + 1 < t.shape.size(); ++i) {
      names->add_shape(t.shape[i]);
    }
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* KServeService::ModelInfer(
    grpc::CallbackServerContext* context,
    const inference::ModelInferRequest* request,
    inference::ModelInferResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  PreparedInfer call;
  if (grpc::Status s = PrepareModelInfer(*context, request, call); !s.ok()) {
    reactor->Finish(s);
    return reactor;
  }
  // Finished where the call runs: here, or on the thread running its batch.
  std::shared_ptr<ServedModel> served = call.model;
  InferenceCache::RunAsync(
      std::move(served), call.inputs, limits_.max_infer_elements,
      [reactor, request, response,
       model = call.model](absl::StatusOr<std::vector<InferTensor>> outputs) {
        reactor->Finish(RespondModelInfer(*model, request, outputs, response));
      });
  return reactor;
}

grpc::Status KServeService::RunModelInfer(
    const grpc::ServerContextBase& context,
    const inference::ModelInferRequest* request,
    inference::ModelInferResponse* response) {
  PreparedInfer call;
  if (grpc::Status s = PrepareModelInfer(context, request, call); !s.ok()) {
    return s;
  }
  return RespondModelInfer(
      *call.model, request,
      InferenceCache::Run(*call.model, call.inputs, limits_.max_infer_elements),
      response);
}

grpc::Status KServeService::PrepareModelInfer(
    const grpc::ServerContextBase& context,
    const inference::ModelInferRequest* request, PreparedInfer& call) {
  absl::StatusOr<std::shared_ptr<ServedModel>> model =
      Model(context, request->model_name(), request->model_version());
  if (!model.ok()) return ToGrpc(model.status());
  call.model = *std::move(model);
  bool raw = request->raw_input_contents_size() > 0;
  if (raw && request->raw_input_contents_size() != request->inputs_size()) {
    return ToGrpc(absl::InvalidArgumentError(
        StrCat(request->inputs_size(), " inputs but ",
               request->raw_input_contents_size(), " raw_input_contents")));
  }
  std::vector<InferTensor> inputs;
  int64_t elements = 0;
  for (int i = 0; i < request->inputs_size(); ++i) {
    const auto& t = request->inputs(i);
    auto type = Types().find(t.datatype());
    if (type == Types().end()) {
      return ToGrpc(absl::InvalidArgumentError(StrCat(
          "input '", t.name(), "': unknown data type '", t.datatype(), "'")));
    }
    absl::StatusOr<std::vector<double>> values =
        raw ? DecodeRaw(type->second, request->raw_input_contents(i))
            : TypedContents(t);
    if (!values.ok()) {
      return ToGrpc(absl::InvalidArgumentError(
          StrCat("input '", t.name(), "': ", values.status().message())));
    }
    elements += static_cast<int64_t>(values->size());
    if (elements > limits_.max_infer_elements) {
      return ToGrpc(absl::ResourceExhaustedError(
          StrCat("the inputs have more than ", limits_.max_infer_elements,
                 " elements (the daemon's limit)")));
    }
    inputs.push_back(
        {t.name(), {t.shape().begin(), t.shape().end()}, std::move(*values)});
  }
  call.inputs = std::move(inputs);
  return grpc::Status::OK;
}

grpc::Status KServeService::RespondModelInfer(
    const ServedModel& model, const inference::ModelInferRequest* request,
    const absl::StatusOr<std::vector<InferTensor>>& outputs,
    inference::ModelInferResponse* response) {
  if (!outputs.ok()) return ToGrpc(outputs.status());
  const bool raw = request->raw_input_contents_size() > 0;
  absl::StatusOr<std::vector<KServeOutput>> answers =
      KServeOutputs(*request, *outputs, InferenceCache::Classes(model));
  if (!answers.ok()) return ToGrpc(answers.status());
  response->set_model_name(request->model_name());
  response->set_model_version("1");
  response->set_id(request->id());
  for (KServeOutput& o : *answers) {
    auto* out = response->add_outputs();
    out->set_name(o.name);
    out->set_datatype(o.strings ? "BYTES" : "FP32");
    for (int64_t e : o.shape) out->add_shape(e);
    if (raw) {
      response->add_raw_output_contents(RawContents(o));
    } else if (o.strings) {
      for (std::string& v : *o.strings) {
        out->mutable_contents()->add_bytes_contents(std::move(v));
      }
    } else {
      for (double v : o.values) {
        out->mutable_contents()->add_fp32_contents(static_cast<float>(v));
      }
    }
  }
  return grpc::Status::OK;
}

}  // namespace webnnm::server
