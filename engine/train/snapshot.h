// The snapshot container (docs/snapshot-format.md): a protobuf header
// (webnnm.v1.SnapshotHeader) and aligned little-endian float32 tensors,
// framed by a magic, a version and lengths, and closed by a CRC-32 over
// everything before it.
//
// DecodeSnapshot() accepts any byte string without crashing: anything but a
// well-formed snapshot of this version is an error saying what is wrong.
// WriteFileAtomically() writes a temporary file beside the target, syncs
// it, renames it over the target and syncs the directory, so a reader sees
// the old file or the new one, never a part.
#ifndef WEBNNM_ENGINE_TRAIN_SNAPSHOT_H_
#define WEBNNM_ENGINE_TRAIN_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "webnnm/v1/snapshot.pb.h"

namespace webnnm::train {

inline constexpr std::string_view kSnapshotMagic = "WNNMSNAP";
inline constexpr uint32_t kSnapshotVersion = 1;
// Preamble: magic, version (u32), header length (u32), data length (u64).
inline constexpr size_t kSnapshotPreamble = 24;
// The data section and every tensor in it start at multiples of this.
inline constexpr size_t kSnapshotAlignment = 64;

struct SnapshotTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

struct SnapshotFile {
  // Everything but the tensor table, which EncodeSnapshot() writes from
  // `tensors` (and DecodeSnapshot() leaves filled in).
  v1::SnapshotHeader header;
  std::vector<SnapshotTensor> tensors;
};

// Fails only when a tensor's values do not match its shape or names repeat.
absl::StatusOr<std::string> EncodeSnapshot(const SnapshotFile& file);
absl::StatusOr<SnapshotFile> DecodeSnapshot(std::string_view bytes);

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes);
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_SNAPSHOT_H_
