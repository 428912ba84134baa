// libFuzzer target: bytes through the dataset readers (CSV, NPZ, IDX), then
// split and standardization. The first byte chooses the reader and its
// options; the rest is the content. Anything the readers accept must split
// and standardize without a crash; anything they refuse must say why.
//
// CSV: byte 0 bit 0 = no header, bit 1 = classification, bit 2 = label the
// first column by name; the rest is the file.
// NPZ (byte 0 bit 5, bit 7 clear): the rest is a NumPy .npz archive, read
// for a model of one input of 2 values and a 3-class output under a 1 MiB
// limit; what it accepts holds finite features only.
// IDX (byte 0 bit 7): the rest is four files (train images, train labels,
// t10k images, t10k labels), each as a 2-byte little-endian length and its
// bytes, written uncompressed — or, with bit 6, gzipped with the rest of
// the file's claimed size (up to 16 MiB) appended as zeros: gzip bombs,
// read under a 1 MiB limit.
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "engine/data/dataset.h"
#include "engine/data/npz.h"

namespace {

namespace fs = std::filesystem;

const fs::path& Folder() {
  static const fs::path folder = [] {
    fs::path f = fs::temp_directory_path() /
                 ("webnnm-dataset-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(f);
    // Removed when the fuzzer exits (a copy that outlives `folder`).
    static fs::path* copy = new fs::path(f);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(*copy, ec);
    });
    return f;
  }();
  return folder;
}

void Write(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A gzipped IDX file: `bytes`, then zeros up to what its header claims
// (at most 16 MiB), so that a few bytes of input inflate to megabytes.
void WriteBomb(const fs::path& path, std::string_view bytes) {
  int64_t claimed = 0;
  if (bytes.size() >= 4) {
    const int rank = static_cast<uint8_t>(bytes[3]);
    claimed = 1;
    for (int i = 0; i < rank && 4 + 4 * i + 4 <= static_cast<int>(bytes.size());
         ++i) {
      const auto* d =
          reinterpret_cast<const uint8_t*>(bytes.data() + 4 + 4 * i);
      int64_t n = (int64_t{d[0]} << 24) | (d[1] << 16) | (d[2] << 8) | d[3];
      claimed = std::min<int64_t>(claimed * std::max<int64_t>(n, 1), 16 << 20);
    }
  }
  gzFile f = gzopen(path.c_str(), "wb1");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  static const std::string zeros(1 << 20, '\0');
  for (int64_t left = claimed; left > 0; left -= zeros.size()) {
    gzwrite(f, zeros.data(),
            static_cast<unsigned>(std::min<int64_t>(left, zeros.size())));
  }
  gzclose(f);
}

void Exercise(absl::StatusOr<webnnm::train::Dataset> data, bool fixed_test) {
  if (!data.ok()) {
    if (data.status().message().empty()) __builtin_trap();
    return;
  }
  absl::Status split = data->Split(60, 20, 20, 7, fixed_test);
  if (!split.ok()) {
    if (split.message().empty()) __builtin_trap();
    return;
  }
  data->Standardize();
  for (int s = 0; s < 3; ++s) {
    for (int64_t i : data->subset(static_cast<webnnm::train::Subset>(s))) {
      if (i < 0 || i >= data->count()) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode & 0x80) {
    static const char* const kNames[] = {
        "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
    fs::path dir = Folder() / "idx";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* name : kNames) {
      if (rest.size() < 2) return 0;
      size_t n = static_cast<uint8_t>(rest[0]) |
                 (static_cast<size_t>(static_cast<uint8_t>(rest[1])) << 8);
      rest.remove_prefix(2);
      n = std::min(n, rest.size());
      if (mode & 0x40) {
        WriteBomb(dir / (std::string(name) + ".gz"), rest.substr(0, n));
      } else {
        Write(dir / name, rest.substr(0, n));
      }
      rest.remove_prefix(n);
    }
    // The daemon reads under its dataset limit; here 1 MiB.
    absl::StatusOr<webnnm::train::Dataset> read =
        webnnm::train::LoadIdx(dir.string(), 1 << 20);
    if (!read.ok() && read.status().code() == absl::StatusCode::kInternal) {
      __builtin_trap();  // a reader's failure, not the data's
    }
    Exercise(std::move(read), /*fixed_test=*/true);
    return 0;
  }
  if (mode & 0x20) {
    fs::path file = Folder() / "data.npz";
    Write(file, rest);
    webnnm::train::NpzSpec spec{
        .inputs = {{.name = "model", .step_values = 2}},
        .outputs = {{.name = "model", .classification = true, .units = 3}},
        .max_bytes = 1 << 20};
    absl::StatusOr<webnnm::train::Dataset> read =
        webnnm::train::LoadNpz(file.string(), spec);
    if (read.ok()) {
      for (int64_t i = 0; i < read->count(); ++i) {
        const float* f = read->features(i);
        for (int64_t k = 0; k < read->width(); ++k) {
          if (!std::isfinite(f[k])) __builtin_trap();  // NaN let through
        }
      }
    }
    Exercise(std::move(read), /*fixed_test=*/false);
    return 0;
  }
  fs::path file = Folder() / "data.csv";
  Write(file, rest);
  webnnm::train::CsvOptions options;
  options.header = !(mode & 1);
  if (mode & 4) options.label = options.header ? "a" : "c0";
  Exercise(webnnm::train::LoadCsv(file.string(), options, (mode & 2) != 0),
           /*fixed_test=*/false);
  return 0;
}
