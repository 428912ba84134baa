// gRPC server reflection, v1 (grpc.reflection.v1.ServerReflection), beside
// the v1alpha service that Debian's gRPC 1.51 provides. The two protocols'
// messages are the same; this one answers from the process's generated
// descriptor pool: the services it is told of, files by name, the file
// defining a symbol or an extension (each with the files it imports,
// transitively), and a type's extension numbers.
// Unknown names get an error_response with NOT_FOUND, as v1alpha does.
// Like v1alpha, it needs no token.
#ifndef WEBNNM_SERVER_RPC_REFLECTION_V1_H_
#define WEBNNM_SERVER_RPC_REFLECTION_V1_H_

#include <string>
#include <vector>

#include "grpc/reflection/v1/reflection.grpc.pb.h"

namespace webnnm::server {

class ReflectionV1Service final
    : public grpc::reflection::v1::ServerReflection::Service {
 public:
  // `services`: the full names list_services answers (this one's among
  // them).
  explicit ReflectionV1Service(std::vector<std::string> services);

  grpc::Status ServerReflectionInfo(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<grpc::reflection::v1::ServerReflectionResponse,
                               grpc::reflection::v1::ServerReflectionRequest>*
          stream) override;

 private:
  std::vector<std::string> services_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_REFLECTION_V1_H_
