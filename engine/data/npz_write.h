// Writing zip archives in memory with libzip: NumPy .npy arrays (format
// 1.0, C order, little-endian) in a deflated .npz — what `predict --output
// OUT.npz` and the daemon's prediction downloads give — and zipped image
// folders (what `webnnmctl dataset upload DIR` sends).
#ifndef WEBNNM_ENGINE_DATA_NPZ_WRITE_H_
#define WEBNNM_ENGINE_DATA_NPZ_WRITE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::train {

// One array: its name in the archive (without .npy), NumPy's dtype text
// ('<f4', '<i8', '<U12'), shape and raw little-endian element bytes.
struct NpyOut {
  std::string name;
  std::string descr;
  std::vector<int64_t> shape;
  std::string data;
};

NpyOut Float32Array(std::string name, std::vector<int64_t> shape,
                    const std::vector<double>& values);
NpyOut Int64Array(std::string name, std::vector<int64_t> shape,
                  const std::vector<int64_t>& values);
// A 1-D array of strings ('<U' of the longest, UTF-32; UTF-8 in).
NpyOut UnicodeArray(std::string name, const std::vector<std::string>& texts);

// The .npy file of one array.
std::string EncodeNpy(const NpyOut& array);

// A deflated zip archive of (name, content) files, in memory, every entry
// dated 1980-01-01 so the same files give the same bytes; Internal when
// libzip fails.
absl::StatusOr<std::string> EncodeZip(
    const std::vector<std::pair<std::string, std::string>>& files);

// The .npz archive's bytes (EncodeZip of NAME.npy files).
absl::StatusOr<std::string> EncodeNpz(const std::vector<NpyOut>& arrays);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_NPZ_WRITE_H_
