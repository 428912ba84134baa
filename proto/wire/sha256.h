// SHA-256 (OpenSSL), as lowercase hex, and the content hash of a dataset:
// the SHA-256 of each file's name, a NUL, its size in decimal, a NUL and its
// bytes, for the files in name order (what webnnmctl sends with an upload
// and the daemon checks).
#ifndef WEBNNM_PROTO_WIRE_SHA256_H_
#define WEBNNM_PROTO_WIRE_SHA256_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::wire {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  void Update(std::string_view bytes);
  std::string HexDigest();  // ends the hash

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string Sha256Hex(std::string_view bytes);

// The dataset hash of `files` (paths; each hashed under its base name).
absl::StatusOr<std::string> DatasetHash(std::vector<std::string> files);

}  // namespace webnnm::wire

#endif  // WEBNNM_PROTO_WIRE_SHA256_H_
