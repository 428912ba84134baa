#include "proto/wire/sha256.h"

#include <openssl/evp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "engine/base/strings.h"

namespace webnnm::wire {

struct Sha256::State {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr);
}

Sha256::~Sha256() { EVP_MD_CTX_free(state_->ctx); }

void Sha256::Update(std::string_view bytes) {
  EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size());
}

std::string Sha256::HexDigest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(state_->ctx, digest, &size);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.HexDigest();
}

absl::StatusOr<std::string> DatasetHash(std::vector<std::string> files) {
  std::sort(files.begin(), files.end(),
            [](const std::string& a, const std::string& b) {
              return std::filesystem::path(a).filename() <
                     std::filesystem::path(b).filename();
            });
  Sha256 h;
  std::vector<char> buffer(1 << 20);
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(file, ec);
    if (!in || ec) {
      return absl::NotFoundError(StrCat("cannot read '", file, "'"));
    }
    std::string name = std::filesystem::path(file).filename().string();
    h.Update(name);
    h.Update(std::string_view("\0", 1));
    h.Update(std::to_string(size));
    h.Update(std::string_view("\0", 1));
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      h.Update(
          std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
    }
  }
  return h.HexDigest();
}

}  // namespace webnnm::wire
