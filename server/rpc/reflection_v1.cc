// grpc.reflection.v1 from the generated descriptor pool (see the header).
#include "server/rpc/reflection_v1.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

namespace webnnm::server {
namespace {

namespace pb = google::protobuf;
namespace rv1 = grpc::reflection::v1;

// Adds `file` and the files it imports, each once per answer (as v1alpha:
// a client that asks again gets the files again).
void AddFile(const pb::FileDescriptor* file, std::set<std::string>& sent,
             rv1::FileDescriptorResponse* out) {
  if (!sent.insert(file->name()).second) return;
  pb::FileDescriptorProto proto;
  file->CopyTo(&proto);
  out->add_file_descriptor_proto(proto.SerializeAsString());
  for (int i = 0; i < file->dependency_count(); ++i) {
    AddFile(file->dependency(i), sent, out);
  }
}

void NotFound(const std::string& what, rv1::ServerReflectionResponse* r) {
  r->mutable_error_response()->set_error_code(
      static_cast<int32_t>(grpc::StatusCode::NOT_FOUND));
  r->mutable_error_response()->set_error_message(what);
}

// The answer to one request.
rv1::ServerReflectionResponse Answer(
    const rv1::ServerReflectionRequest& request,
    const std::vector<std::string>& services) {
  std::set<std::string> sent;
  const pb::DescriptorPool* pool = pb::DescriptorPool::generated_pool();
  rv1::ServerReflectionResponse r;
  r.set_valid_host(request.host());
  *r.mutable_original_request() = request;
  switch (request.message_request_case()) {
    case rv1::ServerReflectionRequest::kListServices:
      for (const std::string& s : services) {
        r.mutable_list_services_response()->add_service()->set_name(s);
      }
      break;
    case rv1::ServerReflectionRequest::kFileByFilename: {
      const pb::FileDescriptor* f =
          pool->FindFileByName(request.file_by_filename());
      if (f == nullptr) {
        NotFound("File not found.", &r);
      } else {
        AddFile(f, sent, r.mutable_file_descriptor_response());
      }
      break;
    }
    case rv1::ServerReflectionRequest::kFileContainingSymbol: {
      const pb::FileDescriptor* f =
          pool->FindFileContainingSymbol(request.file_containing_symbol());
      if (f == nullptr) {
        NotFound("Symbol not found.", &r);
      } else {
        AddFile(f, sent, r.mutable_file_descriptor_response());
      }
      break;
    }
    case rv1::ServerReflectionRequest::kFileContainingExtension: {
      const rv1::ExtensionRequest& e = request.file_containing_extension();
      const pb::Descriptor* type =
          pool->FindMessageTypeByName(e.containing_type());
      const pb::FieldDescriptor* field =
          type == nullptr
              ? nullptr
              : pool->FindExtensionByNumber(type, e.extension_number());
      if (field == nullptr) {
        NotFound("Extension not found.", &r);
      } else {
        AddFile(field->file(), sent, r.mutable_file_descriptor_response());
      }
      break;
    }
    case rv1::ServerReflectionRequest::kAllExtensionNumbersOfType: {
      const pb::Descriptor* type =
          pool->FindMessageTypeByName(request.all_extension_numbers_of_type());
      if (type == nullptr) {
        NotFound("Type not found.", &r);
        break;
      }
      std::vector<const pb::FieldDescriptor*> extensions;
      pool->FindAllExtensions(type, &extensions);
      rv1::ExtensionNumberResponse* out =
          r.mutable_all_extension_numbers_response();
      out->set_base_type_name(type->full_name());
      for (const pb::FieldDescriptor* x : extensions) {
        out->add_extension_number(x->number());
      }
      break;
    }
    default:
      r.mutable_error_response()->set_error_code(
          static_cast<int32_t>(grpc::StatusCode::UNIMPLEMENTED));
      r.mutable_error_response()->set_error_message(
          "The server does not support this request.");
  }
  return r;
}

}  // namespace

ReflectionV1Service::ReflectionV1Service(std::vector<std::string> services)
    : services_(std::move(services)) {
  std::sort(services_.begin(), services_.end());
  services_.erase(std::unique(services_.begin(), services_.end()),
                  services_.end());
}

grpc::Status ReflectionV1Service::ServerReflectionInfo(
    grpc::ServerContext* /*context*/,
    grpc::ServerReaderWriter<rv1::ServerReflectionResponse,
                             rv1::ServerReflectionRequest>* stream) {
  rv1::ServerReflectionRequest request;
  while (stream->Read(&request)) {
    if (!stream->Write(Answer(request, services_))) break;
  }
  return grpc::Status::OK;
}

}  // namespace webnnm::server
