// Bearer tokens: who a call comes from.
//
// A tokens file has one `TOKEN PRINCIPAL [admin]` per line, fields separated
// by whitespace; blank lines and `#` comments are ignored. With tokens, every
// call (but grpc.health.v1 and reflection, which never ask) must carry
// `authorization: Bearer TOKEN`; without tokens every call is the admin
// principal "local" (and the daemon serves only on loopback).
#ifndef WEBNNM_SERVER_RPC_AUTH_H_
#define WEBNNM_SERVER_RPC_AUTH_H_

#include <map>
#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "server/core/principal.h"

namespace webnnm::server {

class Tokens {
 public:
  // No tokens: everyone is the admin "local".
  Tokens() = default;
  // InvalidArgument with the line for a malformed file.
  static absl::StatusOr<Tokens> Parse(const std::string& text,
                                      const std::string& file_name);
  static absl::StatusOr<Tokens> Load(const std::string& path);

  bool enabled() const { return !tokens_.empty(); }
  size_t size() const { return tokens_.size(); }
  // UNAUTHENTICATED without a known bearer token (when enabled).
  // (Either API's context: synchronous or callback.)
  absl::StatusOr<Principal> Authenticate(
      const grpc::ServerContextBase& context) const;
  absl::StatusOr<Principal> AuthenticateHeader(std::string_view header) const;

 private:
  std::map<std::string, Principal, std::less<>> tokens_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_AUTH_H_
