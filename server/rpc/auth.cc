#include "server/rpc/auth.h"

#include <fstream>
#include <sstream>

#include "engine/base/strings.h"

namespace webnnm::server {
namespace {

// Compares without an early exit, so timing says nothing of the token.
bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

}  // namespace

absl::StatusOr<Tokens> Tokens::Parse(const std::string& text,
                                     const std::string& file_name) {
  Tokens tokens;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (size_t hash = line.find('#'); hash != std::string::npos) {
      line.resize(hash);
    }
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.empty()) continue;
    auto bad = [&](const std::string& why) {
      return absl::InvalidArgumentError(
          StrCat(file_name, ":", number, ": ", why));
    };
    if (f.size() < 2 || f.size() > 3) {
      return bad("expected TOKEN PRINCIPAL [admin]");
    }
    if (f.size() == 3 && f[2] != "admin") {
      return bad(
          StrCat("the third field can only be 'admin', not '", f[2], "'"));
    }
    if (tokens.tokens_.count(f[0])) return bad("this token appears twice");
    tokens.tokens_[f[0]] = Principal{f[1], f.size() == 3};
  }
  return tokens;
}

absl::StatusOr<Tokens> Tokens::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        StrCat("cannot read the tokens file '", path, "'"));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Tokens> tokens = Parse(text.str(), path);
  if (tokens.ok() && !tokens->enabled()) {
    return absl::InvalidArgumentError(
        StrCat("the tokens file '", path, "' has no token"));
  }
  return tokens;
}

absl::StatusOr<Principal> Tokens::AuthenticateHeader(
    std::string_view header) const {
  if (!enabled()) return Principal{"local", true};
  constexpr std::string_view kBearer = "Bearer ";
  if (header.substr(0, kBearer.size()) != kBearer) {
    return absl::UnauthenticatedError(
        "this daemon needs a token: authorization: Bearer TOKEN "
        "(webnnmctl --token or WEBNNM_TOKEN)");
  }
  std::string_view token = header.substr(kBearer.size());
  const Principal* found = nullptr;
  for (const auto& [secret, principal] : tokens_) {
    if (SameSecret(secret, token)) found = &principal;
  }
  if (!found) return absl::UnauthenticatedError("unknown token");
  return *found;
}

absl::StatusOr<Principal> Tokens::Authenticate(
    const grpc::ServerContextBase& context) const {
  if (!enabled()) return Principal{"local", true};
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return AuthenticateHeader("");
  return AuthenticateHeader(
      std::string_view(it->second.data(), it->second.size()));
}

}  // namespace webnnm::server
