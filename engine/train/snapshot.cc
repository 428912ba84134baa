#include "engine/train/snapshot.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/base/strings.h"

namespace webnnm::train {
namespace {

static_assert(std::endian::native == std::endian::little,
              "snapshots are little-endian; add byte swapping for this host");

void PutU32(std::string& out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

void PutU64(std::string& out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}

uint32_t GetU32(std::string_view bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

uint64_t GetU64(std::string_view bytes, size_t at) {
  uint64_t v;
  std::memcpy(&v, bytes.data() + at, 8);
  return v;
}

size_t AlignUp(size_t n) {
  return (n + kSnapshotAlignment - 1) / kSnapshotAlignment * kSnapshotAlignment;
}

uint32_t Crc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t at = 0;
  while (at < bytes.size()) {
    uInt chunk =
        static_cast<uInt>(std::min<size_t>(bytes.size() - at, 1 << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), chunk);
    at += chunk;
  }
  return static_cast<uint32_t>(crc);
}

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(StrCat("not a valid snapshot: ", what));
}

// The element count of `shape`, or -1 when a dimension is negative or the
// count exceeds `limit`.
int64_t CountWithin(const google::protobuf::RepeatedField<int64_t>& shape,
                    uint64_t limit) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) return 0;
    if (n > limit / static_cast<uint64_t>(d)) return -1;
    n *= static_cast<uint64_t>(d);
  }
  return n > limit ? -1 : static_cast<int64_t>(n);
}

}  // namespace

absl::StatusOr<std::string> EncodeSnapshot(const SnapshotFile& file) {
  v1::SnapshotHeader header = file.header;
  header.clear_tensors();
  std::set<std::string> names;
  uint64_t data_length = 0;
  for (const SnapshotTensor& t : file.tensors) {
    if (!names.insert(t.name).second) {
      return absl::InvalidArgumentError(
          StrCat("snapshot tensor '", t.name, "' appears twice"));
    }
    int64_t count = 1;
    for (int64_t d : t.shape) count *= d;
    if (count != static_cast<int64_t>(t.values.size())) {
      return absl::InvalidArgumentError(
          StrCat("snapshot tensor '", t.name, "' has ", t.values.size(),
                 " values for ", count, " elements"));
    }
    v1::SnapshotTensor* entry = header.add_tensors();
    entry->set_name(t.name);
    entry->set_dtype("float32");
    for (int64_t d : t.shape) entry->add_shape(d);
    data_length = AlignUp(data_length);
    entry->set_offset(data_length);
    entry->set_length(t.values.size() * sizeof(float));
    data_length += entry->length();
  }
  std::string header_bytes;
  if (!header.SerializeToString(&header_bytes)) {
    return absl::InternalError("cannot serialize the snapshot header");
  }
  std::string out;
  out.reserve(AlignUp(kSnapshotPreamble + header_bytes.size()) + data_length +
              4);
  out.append(kSnapshotMagic);
  PutU32(out, kSnapshotVersion);
  PutU32(out, static_cast<uint32_t>(header_bytes.size()));
  PutU64(out, data_length);
  out.append(header_bytes);
  const size_t data_start = AlignUp(out.size());
  out.resize(data_start, '\0');
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const v1::SnapshotTensor& entry = header.tensors(static_cast<int>(i));
    out.resize(data_start + entry.offset(), '\0');
    out.append(reinterpret_cast<const char*>(file.tensors[i].values.data()),
               entry.length());
  }
  out.resize(data_start + data_length, '\0');
  PutU32(out, Crc32(out));
  return out;
}

absl::StatusOr<SnapshotFile> DecodeSnapshot(std::string_view bytes) {
  if (bytes.size() < kSnapshotPreamble + 4 ||
      bytes.substr(0, kSnapshotMagic.size()) != kSnapshotMagic) {
    return Corrupt("it does not start with WNNMSNAP");
  }
  uint32_t version = GetU32(bytes, 8);
  if (version != kSnapshotVersion) {
    return absl::FailedPreconditionError(
        StrCat("snapshot format version ", version, " is not supported (this ",
               "build reads version ", kSnapshotVersion, ")"));
  }
  const uint64_t header_length = GetU32(bytes, 12);
  const uint64_t data_length = GetU64(bytes, 16);
  const uint64_t size = bytes.size();
  if (header_length > size)
    return Corrupt("the header length exceeds the file");
  const uint64_t data_start = AlignUp(kSnapshotPreamble + header_length);
  if (data_start > size || data_length > size - data_start ||
      data_start + data_length + 4 != size) {
    return Corrupt(StrCat("the lengths (header ", header_length, ", data ",
                          data_length, ") do not add up to the file size ",
                          size, " (truncated or extended?)"));
  }
  uint32_t stored = GetU32(bytes, size - 4);
  uint32_t computed = Crc32(bytes.substr(0, size - 4));
  if (stored != computed) return Corrupt("the checksum does not match");

  SnapshotFile file;
  if (!file.header.ParseFromArray(bytes.data() + kSnapshotPreamble,
                                  static_cast<int>(header_length))) {
    return Corrupt("the header does not parse");
  }
  std::string_view data = bytes.substr(data_start, data_length);
  // The whole table is checked before anything is copied: names, types,
  // bounds, lengths, and that no two entries share bytes (aliased entries
  // would make a small file cost its size once per entry).
  std::set<std::string> names;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // offset, length
  std::vector<int64_t> counts;
  for (const v1::SnapshotTensor& entry : file.header.tensors()) {
    if (!names.insert(entry.name()).second) {
      return Corrupt(StrCat("tensor '", entry.name(), "' appears twice"));
    }
    if (entry.dtype() != "float32") {
      return Corrupt(StrCat("tensor '", entry.name(), "' has dtype '",
                            entry.dtype(), "'; only float32 is defined"));
    }
    if (entry.offset() % kSnapshotAlignment != 0 ||
        entry.offset() > data.size() ||
        entry.length() > data.size() - entry.offset()) {
      return Corrupt(
          StrCat("tensor '", entry.name(), "' lies outside the data section"));
    }
    int64_t count = CountWithin(entry.shape(), data.size() / sizeof(float));
    if (count < 0 ||
        static_cast<uint64_t>(count) * sizeof(float) != entry.length()) {
      return Corrupt(StrCat("tensor '", entry.name(),
                            "' has a length that does not match its shape"));
    }
    counts.push_back(count);
    if (entry.length() > 0) ranges.push_back({entry.offset(), entry.length()});
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i - 1].first + ranges[i - 1].second > ranges[i].first) {
      return Corrupt(StrCat("two tensors share the bytes at offset ",
                            ranges[i].first, " of the data section"));
    }
  }
  int k = 0;
  for (const v1::SnapshotTensor& entry : file.header.tensors()) {
    SnapshotTensor t;
    t.name = entry.name();
    t.shape.assign(entry.shape().begin(), entry.shape().end());
    t.values.resize(static_cast<size_t>(counts[k++]));
    if (!t.values.empty()) {
      std::memcpy(t.values.data(), data.data() + entry.offset(),
                  entry.length());
    }
    file.tensors.push_back(std::move(t));
  }
  return file;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir =
      target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string temp =
      (dir / StrCat(".", target.filename().string(), ".tmp.", getpid()))
          .string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(
        StrCat("cannot create '", temp, "': ", std::strerror(errno)));
  }
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return absl::UnavailableError(
          StrCat("cannot write '", temp, "': ", std::strerror(e)));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(temp.c_str());
    return absl::UnavailableError(
        StrCat("cannot sync '", temp, "': ", std::strerror(e)));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(temp.c_str());
    return absl::UnavailableError(StrCat("cannot rename '", temp, "' to '",
                                         path, "': ", std::strerror(e)));
  }
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot read '", path, "'"));
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return absl::DataLossError(StrCat("cannot read '", path, "'"));
  return bytes.str();
}

}  // namespace webnnm::train
