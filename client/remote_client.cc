#include "client/remote_client.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/terminal.h"

namespace webnnm::client {
namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

}  // namespace

bool ReadWhole(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  return !in.bad();
}

Client::Client(const RemoteOptions& o) {
  server_ =
      o.server.empty() ? EnvOr("WEBNNM_SERVER", "127.0.0.1:50051") : o.server;
  token_ = o.token.empty() ? EnvOr("WEBNNM_TOKEN", "") : o.token;
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (!o.ca.empty()) {
    grpc::SslCredentialsOptions ssl;
    ReadWhole(o.ca, &ssl.pem_root_certs);
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  channel = grpc::CreateCustomChannel(server_, credentials, args);
  stub_ = v1::Webnnm::NewStub(channel);
}

int Client::Error(const grpc::Status& s) const {
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::cerr << Painted("webnnmctl:", Paint::kRed, UseColour(STDERR_FILENO))
              << " cannot reach webnnmd at " << server_ << ": "
              << s.error_message() << "\n";
  } else {
    std::cerr << Painted("webnnmctl:", Paint::kRed, UseColour(STDERR_FILENO))
              << " " << s.error_message() << "\n";
  }
  return 1;
}

}  // namespace webnnm::client
