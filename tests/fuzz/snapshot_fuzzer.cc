// libFuzzer target: bytes through the snapshot reader (container, header,
// tensor table, model state). Anything but a valid snapshot must be an
// error; a valid one must encode again to a snapshot that reads the same.
// Each input is read twice: as it is, and with its checksum repaired, so
// mutations reach the checks behind the checksum.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/train/checkpoint.h"
#include "google/protobuf/stubs/logging.h"

namespace {

// Equal names and bit patterns (NaN values included).
bool SameBits(const webnnm::train::Params& a, const webnnm::train::Params& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first || i->second.size() != j->second.size()) {
      return false;
    }
    if (!i->second.empty() &&  // memcmp takes no null pointers
        std::memcmp(i->second.data(), j->second.data(),
                    i->second.size() * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

void Check(std::string_view bytes) {
  absl::StatusOr<webnnm::train::ModelSnapshot> snapshot =
      webnnm::train::DecodeModelSnapshot(bytes);
  if (!snapshot.ok()) {
    if (snapshot.status().message().empty()) __builtin_trap();
    return;
  }
  absl::StatusOr<std::string> again =
      webnnm::train::EncodeModelSnapshot(*snapshot);
  if (!again.ok()) __builtin_trap();
  absl::StatusOr<webnnm::train::ModelSnapshot> back =
      webnnm::train::DecodeModelSnapshot(*again);
  if (!back.ok() || !SameBits(back->state.best, snapshot->state.best) ||
      back->state.step != snapshot->state.step) {
    __builtin_trap();
  }
}

}  // namespace

// Protobuf logs each header with invalid UTF-8 (rejected all the same).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  Check(bytes);
  if (size >= 4) {
    uint32_t crc = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()),
              static_cast<uInt>(size - 4)));
    std::memcpy(bytes.data() + size - 4, &crc, 4);
    Check(bytes);
  }
  return 0;
}
