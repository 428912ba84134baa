// LoadIdx (dataset.h): MNIST-style IDX files, gzipped or not (zlib's gzread
// reads both).
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "engine/base/huge_pages.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/dataset.h"

namespace webnnm::train {
namespace {

// The file `stem` or `stem.gz` in `directory` (not both: which one was
// meant cannot be told).
absl::StatusOr<std::string> Find(const std::string& directory,
                                 const std::string& stem) {
  std::vector<std::string> found;
  for (const std::string& name : {stem, stem + ".gz"}) {
    std::filesystem::path p = std::filesystem::path(directory) / name;
    if (std::filesystem::exists(p)) found.push_back(p.string());
  }
  if (found.size() == 2) {
    return absl::InvalidArgumentError(StrCat(
        directory, ": both ", stem, " and ", stem, ".gz; keep one of them"));
  }
  if (found.empty()) {
    return absl::NotFoundError(
        StrCat(directory, ": no ", stem, " or ", stem, ".gz"));
  }
  return found[0];
}

struct Idx {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

// `budget`: the bytes the dataset's files may still hold decompressed;
// a header that claims more is refused before anything is allocated.
absl::StatusOr<Idx> ReadIdx(const std::string& path, int expected_rank,
                            int64_t& budget) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError(StrCat("cannot read ", path));
  auto fail = [&](const std::string& why) {
    gzclose(file);
    return absl::InvalidArgumentError(StrCat(path, ": ", why));
  };
  unsigned char header[4];
  if (gzread(file, header, 4) != 4) return fail("too short for an IDX header");
  if (header[0] != 0 || header[1] != 0 || header[2] != 0x08) {
    return fail("not an IDX file of unsigned bytes");
  }
  int rank = header[3];
  if (rank != expected_rank) {
    return fail(
        StrCat(rank, " dimensions where ", expected_rank, " are expected"));
  }
  Idx idx;
  int64_t total = 1;
  for (int i = 0; i < rank; ++i) {
    unsigned char d[4];
    if (gzread(file, d, 4) != 4) return fail("truncated header");
    int64_t size = (int64_t{d[0]} << 24) | (int64_t{d[1]} << 16) |
                   (int64_t{d[2]} << 8) | d[3];
    if (size <= 0 || size > (int64_t{1} << 28) ||
        total * size > (int64_t{1} << 31)) {
      return fail("implausible dimension sizes");
    }
    idx.dims.push_back(size);
    total *= size;
  }
  if (total > budget) {
    return fail(StrCat("its header claims ", total,
                       " bytes of data, more than the ", budget,
                       " the dataset may still hold decompressed (the limit "
                       "is the daemon's max_dataset_bytes)"));
  }
  budget -= total;
  // The buffer grows with the data actually read, so a header that claims
  // more than the file holds costs no more memory than the file.
  idx.data.reserve(static_cast<size_t>(std::min<int64_t>(total, 1 << 20)));
  std::vector<uint8_t> chunk(1 << 20);
  int64_t done = 0;
  while (done < total) {
    int want = static_cast<int>(
        std::min<int64_t>(total - done, static_cast<int64_t>(chunk.size())));
    int n = gzread(file, chunk.data(), want);
    if (n <= 0) return fail(StrCat("holds ", done, " of ", total, " bytes"));
    idx.data.insert(idx.data.end(), chunk.begin(), chunk.begin() + n);
    done += n;
  }
  gzclose(file);
  return idx;
}

}  // namespace

absl::StatusOr<Dataset> LoadIdx(const std::string& directory,
                                int64_t max_bytes) {
  // The bytes all four files may hold decompressed (their features then
  // take four times as many as floats).
  int64_t budget = max_bytes > 0 ? max_bytes : int64_t{4} << 30;
  // Both parts' bytes first, then the floats in one allocation of the
  // final size: growing the first part's floats to hold the second's would
  // hold both copies at once (the peak memory of a Fashion-MNIST run).
  struct Part {
    std::string images, labels;
    Idx x, y;
  };
  std::vector<Part> parts;
  int64_t width = 0, values = 0;
  for (const char* part : {"train", "t10k"}) {
    Part p;
    ASSIGN_OR_RETURN(p.images,
                     Find(directory, StrCat(part, "-images-idx3-ubyte")));
    ASSIGN_OR_RETURN(p.labels,
                     Find(directory, StrCat(part, "-labels-idx1-ubyte")));
    ASSIGN_OR_RETURN(p.y, ReadIdx(p.labels, 1, budget));
    ASSIGN_OR_RETURN(p.x, ReadIdx(p.images, 3, budget));
    if (p.x.dims[0] != p.y.dims[0]) {
      return absl::InvalidArgumentError(
          StrCat(p.images, " has ", p.x.dims[0], " images but ", p.labels,
                 " has ", p.y.dims[0], " labels"));
    }
    const int64_t w = p.x.dims[1] * p.x.dims[2];
    if (width != 0 && w != width) {
      return absl::InvalidArgumentError(
          StrCat(directory, ": the train and t10k images differ in size"));
    }
    width = w;
    values += static_cast<int64_t>(p.x.data.size());
    parts.push_back(std::move(p));
  }
  std::vector<float> features, targets;
  std::vector<int64_t> test;
  features.reserve(static_cast<size_t>(values));
  // Batches gather rows from all over it: huge pages (huge_pages.h).
  AdviseHugePages(features.data(), features.capacity() * sizeof(float));
  for (size_t k = 0; k < parts.size(); ++k) {
    Part& p = parts[k];
    const int64_t base = static_cast<int64_t>(targets.size());
    for (uint8_t v : p.x.data) features.push_back(v / 255.0f);
    std::vector<uint8_t>().swap(p.x.data);  // the bytes go as we go
    for (int64_t i = 0; i < p.y.dims[0]; ++i) {
      if (p.y.data[i] > 9) {
        return absl::InvalidArgumentError(
            StrCat(p.labels, ": label ", int{p.y.data[i]}, " of sample ", i,
                   " is not a digit class 0..9"));
      }
      targets.push_back(p.y.data[i]);
      if (k == 1) test.push_back(base + i);  // t10k
    }
  }
  std::vector<std::string> classes;
  for (int c = 0; c < 10; ++c) classes.push_back(StrCat(c));
  Dataset d = Dataset::Make(directory, width, std::move(features), 1,
                            std::move(targets), true, std::move(classes));
  d.SetSubset(Subset::kTest, std::move(test));
  return d;
}

}  // namespace webnnm::train
