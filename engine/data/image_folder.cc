// LoadImageFolder (image_folder.h): class folders of PNG and JPEG files
// (decoded by image_decode.h), or a .zip of them.
#include "engine/data/image_folder.h"

#include <zip.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <vector>

#include "engine/base/checked_math.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/image_decode.h"
#include "engine/data/npz_write.h"

namespace webnnm::train {

using internal::Decode;
using internal::Image;
using internal::ImageHeader;

namespace {

namespace fs = std::filesystem;

constexpr char kExpected[] =
    "an image folder holds one subfolder per class (at least two), each "
    "with .png, .jpg or .jpeg files";

bool IsDotName(const std::string& name) {
  return name.empty() || name[0] == '.';
}

bool IsImageName(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  return lower.ends_with(".png") || lower.ends_with(".jpg") ||
         lower.ends_with(".jpeg");
}

bool IsIdxName(const std::string& name) {
  return name.find("-idx") != std::string::npos &&
         name.find("-ubyte") != std::string::npos;
}

struct ClassFiles {
  std::string name;
  std::vector<std::string> paths;  // sorted by file name
};

// The names in `dir` (no dot-names) that are directories (`folders`) or
// not, sorted.
absl::StatusOr<std::vector<std::string>> List(const std::string& dir,
                                              bool folders) {
  std::error_code error;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::error_code ignored;
    if (IsDotName(name) || it->is_directory(ignored) != folders) continue;
    names.push_back(name);
  }
  if (error) {
    return absl::InvalidArgumentError(
        StrCat(dir, ": cannot list (", error.message(), ")"));
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<std::vector<ClassFiles>> ListClasses(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return absl::NotFoundError(StrCat(dir, ": no such directory"));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> names, List(dir, true));
  if (names.size() < 2) {
    return absl::InvalidArgumentError(StrCat(
        dir,
        names.empty() ? ": no class subfolders"
                      : StrCat(": one class subfolder ('", names[0], "')"),
        "; ", kExpected));
  }
  std::vector<ClassFiles> classes;
  for (const std::string& name : names) {
    const fs::path folder = fs::path(dir) / name;
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     List(folder.string(), false));
    ClassFiles c{.name = name};
    for (const std::string& f : files) {
      if (IsImageName(f)) c.paths.push_back((folder / f).string());
    }
    if (c.paths.empty()) {
      return absl::InvalidArgumentError(StrCat(
          folder.string(), ": no .png, .jpg or .jpeg files; ", kExpected));
    }
    classes.push_back(std::move(c));
  }
  return classes;
}

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     int64_t max_bytes) {
  std::error_code error;
  const uintmax_t size = fs::file_size(path, error);
  if (error) {
    return absl::InvalidArgumentError(
        StrCat(path, ": cannot read (", error.message(), ")"));
  }
  if (size > static_cast<uintmax_t>(max_bytes)) {
    return absl::InvalidArgumentError(
        StrCat(path, ": the file has ", size,
               " bytes, more than the dataset limit of ", max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    return absl::InvalidArgumentError(StrCat(path, ": cannot read"));
  }
  return bytes;
}

// ---- Pixels to samples ----

// The image's values in [0, 1], height x width x `channels`: gray from
// colour by the luma weights, colour from gray by replication.
std::vector<float> ToChannels(const Image& image, int64_t channels) {
  const ImageHeader& h = image.header;
  // value / 255 (or / 65535) in float32: what a reader computes.
  const float scale = h.depth_bytes == 2 ? 65535.0f : 255.0f;
  auto sample = [&](int64_t y, int64_t x, int c) -> float {
    const unsigned char* p = image.pixels.data() + y * h.row_bytes +
                             (x * h.channels + c) * h.depth_bytes;
    return h.depth_bytes == 2 ? (p[0] << 8 | p[1]) : p[0];
  };
  std::vector<float> out(h.width * h.height * channels);
  float* o = out.data();
  for (int64_t y = 0; y < h.height; ++y) {
    for (int64_t x = 0; x < h.width; ++x) {
      if (h.channels == channels) {
        for (int c = 0; c < h.channels; ++c) {
          *o++ = sample(y, x, c) / scale;
        }
      } else if (channels == 1) {
        *o++ = static_cast<float>((0.299 * sample(y, x, 0) +
                                   0.587 * sample(y, x, 1) +
                                   0.114 * sample(y, x, 2)) /
                                  scale);
      } else {
        const float v = sample(y, x, 0) / scale;
        for (int c = 0; c < 3; ++c) *o++ = v;
      }
    }
  }
  return out;
}

// Bilinear sampling positions along one axis of `in` samples resized to
// `out`: half-pixel centres, clamped at the edges.
struct Taps {
  std::vector<int64_t> low, high;
  std::vector<float> weight;  // of `high`
};

Taps AxisTaps(int64_t in, int64_t out) {
  Taps t;
  for (int64_t i = 0; i < out; ++i) {
    double s = (i + 0.5) * static_cast<double>(in) / out - 0.5;
    s = std::clamp(s, 0.0, static_cast<double>(in - 1));
    const int64_t low = static_cast<int64_t>(std::floor(s));
    t.low.push_back(low);
    t.high.push_back(std::min(low + 1, in - 1));
    t.weight.push_back(static_cast<float>(s - low));
  }
  return t;
}

// Writes the H x W x C image `hwc` (of the image's size) as one sample of
// the spec's size and layout, resizing when the sizes differ.
void Place(const std::vector<float>& hwc, const ImageHeader& h,
           const ImageFolderSpec& spec, float* out) {
  const int64_t C = spec.channels, H = spec.height, W = spec.width;
  const Taps ty = AxisTaps(h.height, H), tx = AxisTaps(h.width, W);
  auto at = [&](int64_t y, int64_t x, int64_t c) {
    return hwc[(y * h.width + x) * C + c];
  };
  for (int64_t y = 0; y < H; ++y) {
    for (int64_t x = 0; x < W; ++x) {
      for (int64_t c = 0; c < C; ++c) {
        const float wy = ty.weight[y], wx = tx.weight[x];
        const float top = at(ty.low[y], tx.low[x], c) * (1 - wx) +
                          at(ty.low[y], tx.high[x], c) * wx;
        const float bottom = at(ty.high[y], tx.low[x], c) * (1 - wx) +
                             at(ty.high[y], tx.high[x], c) * wx;
        // Exact where the sizes agree: the weights are then 0.
        out[spec.channels_last ? (y * W + x) * C + c : (c * H + y) * W + x] =
            top * (1 - wy) + bottom * wy;
      }
    }
  }
}

absl::Status CheckSpec(const std::string& dir, const ImageFolderSpec& spec) {
  if ((spec.channels != 1 && spec.channels != 3) || spec.height <= 0 ||
      spec.width <= 0 || spec.max_bytes <= 0) {
    return absl::InvalidArgumentError(
        StrCat(dir,
               ": an image folder is read for 1 or 3 channels of a positive "
               "height and width, not ",
               spec.channels, "x", spec.height, "x", spec.width));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsImageFolder(const std::string& path) {
  std::error_code error;
  if (!fs::is_directory(path, error)) return false;
  bool folder = false;
  for (fs::directory_iterator it(path, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::error_code ignored;
    if (IsDotName(name)) continue;
    if (it->is_directory(ignored)) {
      folder = true;
    } else if (IsIdxName(name)) {
      return false;
    }
  }
  return folder;
}

absl::StatusOr<ImageFolderSpec> ImageFolderSpecFor(
    const ir::TensorType& input) {
  auto refuse = [&] {
    return absl::FailedPreconditionError(StrCat(
        "an image folder feeds an input of {channels, height, width} (or "
        "unnamed [C, H, W]) or {height, width, channels}, with 1 (gray) or 3 "
        "(RGB) channels of a float type; this one is ",
        input.ToString()));
  };
  if (input.rank() != 4 || input.shape[0] != ir::kBatchDim ||
      !ir::IsFloat(input.dtype)) {
    return refuse();
  }
  for (int i = 1; i < 4; ++i) {
    if (ir::IsSymbolic(input.shape[i])) return refuse();
  }
  // As the convolutions' default layout: channels last when the last
  // dimension is named so (attr_binding.cc), else channels first.
  const int named = input.has_names() ? input.FindName("channels") : -1;
  if (named != -1 && named != 1 && named != 3) return refuse();
  ImageFolderSpec spec;
  spec.channels_last = named == 3;
  const int c = spec.channels_last ? 3 : 1, h = spec.channels_last ? 1 : 2;
  spec.channels = input.shape[c];
  spec.height = input.shape[h];
  spec.width = input.shape[h + 1];
  if (spec.channels != 1 && spec.channels != 3) return refuse();
  return spec;
}

namespace {

// The samples of `classes` (each file read by `read`), as LoadImageFolder
// and LoadImageArchive make them; `where` names the folder or archive.
absl::StatusOr<Dataset> LoadImages(
    const std::string& where, const std::vector<ClassFiles>& classes,
    const std::function<absl::StatusOr<std::string>(const std::string&)>& read,
    const ImageFolderSpec& spec) {
  int64_t count = 0;
  for (const ClassFiles& c : classes) count += c.paths.size();
  const int64_t sample = spec.channels * spec.height * spec.width;
  const std::optional<int64_t> bytes =
      CheckedMul(count, sample * int64_t{sizeof(float)});
  if (!bytes || *bytes > spec.max_bytes) {
    return absl::InvalidArgumentError(StrCat(
        where, ": ", count, " images of ", spec.channels, "x", spec.height, "x",
        spec.width, " float32 values take more than the dataset limit of ",
        spec.max_bytes, " bytes"));
  }
  std::vector<float> features(count * sample), targets;
  targets.reserve(count);
  std::vector<std::string> names;
  for (size_t k = 0; k < classes.size(); ++k) {
    for (const std::string& path : classes[k].paths) {
      ASSIGN_OR_RETURN(std::string file, read(path));
      ASSIGN_OR_RETURN(Image image, Decode(path, file, spec));
      Place(ToChannels(image, spec.channels), image.header, spec,
            features.data() + targets.size() * sample);
      targets.push_back(static_cast<float>(k));
    }
    names.push_back(classes[k].name);
  }
  return Dataset::Make(where, sample, std::move(features), 1,
                       std::move(targets), true, std::move(names));
}

// An archive's image entries by class: CLASS/FILE, or TOP/CLASS/FILE when
// every entry is under one top folder (a zipped image folder). Dot-names
// and other files are ignored, as in a folder.
absl::StatusOr<std::vector<ClassFiles>> ArchiveClasses(
    const std::string& path, const std::vector<std::string>& entries) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& e : entries) {
    std::vector<std::string> p;
    size_t start = 0;
    for (size_t at = e.find('/'); at != std::string::npos;
         start = at + 1, at = e.find('/', start)) {
      p.push_back(e.substr(start, at - start));
    }
    p.push_back(e.substr(start));
    if (p.back().empty()) continue;  // a folder entry
    // Only images count (no dot-names, no __MACOSX/ of macOS zips):
    // stray files leave the layout as it is.
    bool dotted = false;
    for (const std::string& part : p) dotted |= IsDotName(part);
    if (dotted || p[0] == "__MACOSX" || !IsImageName(p.back()) ||
        p.size() < 2 || p.size() > 3) {
      continue;
    }
    parts.push_back(std::move(p));
  }
  // TOP/CLASS/FILE when every image is three deep under one top folder.
  bool one_top = !parts.empty();
  for (const auto& p : parts) {
    one_top &= p.size() == 3 && p[0] == parts[0][0];
  }
  std::map<std::string, ClassFiles> by_class;
  for (const auto& p : parts) {
    const size_t skip = one_top ? 1 : 0;
    if (p.size() != skip + 2) continue;  // not CLASS/FILE
    const std::string& cls = p[skip];
    const std::string& file = p[skip + 1];
    if (IsDotName(cls) || IsDotName(file) || !IsImageName(file)) continue;
    ClassFiles& c = by_class[cls];
    c.name = cls;
    std::string entry = one_top ? p[0] + "/" : "";
    c.paths.push_back(entry + cls + "/" + file);
  }
  if (by_class.size() < 2) {
    return absl::InvalidArgumentError(StrCat(
        path,
        by_class.empty()
            ? ": no CLASS/FILE.png or .jpg entries"
            : StrCat(": one class folder ('", by_class.begin()->first, "')"),
        "; ", kExpected));
  }
  std::vector<ClassFiles> classes;
  for (auto& [name, c] : by_class) {
    std::sort(c.paths.begin(), c.paths.end());
    classes.push_back(std::move(c));
  }
  return classes;
}

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};

}  // namespace

absl::StatusOr<Dataset> LoadImageFolder(const std::string& dir,
                                        const ImageFolderSpec& spec) {
  RETURN_IF_ERROR(CheckSpec(dir, spec));
  ASSIGN_OR_RETURN(std::vector<ClassFiles> classes, ListClasses(dir));
  return LoadImages(
      dir, classes,
      [&](const std::string& path) { return ReadFile(path, spec.max_bytes); },
      spec);
}

bool IsImageArchive(const std::string& path) { return path.ends_with(".zip"); }

absl::StatusOr<std::string> ZipImageFolder(const std::string& dir,
                                           int64_t max_bytes) {
  ASSIGN_OR_RETURN(std::vector<ClassFiles> classes, ListClasses(dir));
  std::vector<std::pair<std::string, std::string>> files;
  int64_t total = 0;
  for (const ClassFiles& c : classes) {
    for (const std::string& path : c.paths) {
      ASSIGN_OR_RETURN(std::string bytes, ReadFile(path, max_bytes));
      total += static_cast<int64_t>(bytes.size());
      if (total > max_bytes) {
        return absl::InvalidArgumentError(
            StrCat(dir, ": the images hold more than ", max_bytes, " bytes"));
      }
      files.emplace_back(
          StrCat(c.name, "/", fs::path(path).filename().string()),
          std::move(bytes));
    }
  }
  return EncodeZip(files);
}

namespace {

// An open archive of class folders and its entries with their sizes.
struct ArchiveListing {
  std::unique_ptr<zip_t, ZipCloser> zip;
  std::map<std::string, zip_uint64_t> sizes;
};

absl::StatusOr<ArchiveListing> ListImageArchive(const std::string& path) {
  int code = 0;
  ArchiveListing listing{std::unique_ptr<zip_t, ZipCloser>(
                             zip_open(path.c_str(), ZIP_RDONLY, &code)),
                         {}};
  if (listing.zip == nullptr) {
    return absl::InvalidArgumentError(
        StrCat(path, ": not a zip archive of class folders of images"));
  }
  const zip_int64_t n = zip_get_num_entries(listing.zip.get(), 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(listing.zip.get(), i, 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE)) {
      return absl::InvalidArgumentError(
          StrCat(path, ": entry ", i, " is unreadable"));
    }
    listing.sizes[st.name] = st.size;
  }
  return listing;
}

}  // namespace

absl::StatusOr<Dataset> LoadImageArchive(const std::string& path,
                                         const ImageFolderSpec& spec) {
  RETURN_IF_ERROR(CheckSpec(path, spec));
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    return absl::NotFoundError(StrCat(path, ": no such file"));
  }
  ASSIGN_OR_RETURN(ArchiveListing listing, ListImageArchive(path));
  std::unique_ptr<zip_t, ZipCloser>& zip = listing.zip;
  std::map<std::string, zip_uint64_t>& sizes = listing.sizes;
  std::vector<std::string> entries;
  for (const auto& [name, size] : sizes) entries.push_back(name);
  ASSIGN_OR_RETURN(std::vector<ClassFiles> classes,
                   ArchiveClasses(path, entries));
  const std::string prefix = path + ":";  // errors name ARCHIVE:ENTRY
  // Every entry's declared size, and all together, against the limit
  // before anything is inflated.
  uint64_t total = 0;
  for (const ClassFiles& c : classes) {
    for (const std::string& e : c.paths) total += sizes[e];
  }
  for (ClassFiles& c : classes) {
    for (std::string& e : c.paths) e = prefix + e;
  }
  if (total > static_cast<uint64_t>(spec.max_bytes)) {
    return absl::InvalidArgumentError(
        StrCat(path, ": the images hold more than ", spec.max_bytes,
               " bytes decompressed (the dataset limit)"));
  }
  auto read = [&](const std::string& name) -> absl::StatusOr<std::string> {
    const std::string entry = name.substr(prefix.size());
    zip_file_t* f = zip_fopen(zip.get(), entry.c_str(), 0);
    if (f == nullptr) {
      return absl::InvalidArgumentError(StrCat(name, ": cannot be opened"));
    }
    std::string bytes(sizes[entry], '\0');
    const zip_int64_t got = zip_fread(f, bytes.data(), bytes.size());
    char probe;
    const zip_int64_t more = zip_fread(f, &probe, 1);
    zip_fclose(f);
    if (got != static_cast<zip_int64_t>(bytes.size()) || more != 0) {
      return absl::InvalidArgumentError(
          StrCat(name, ": corrupt (its size or data do not match)"));
    }
    return bytes;
  };
  return LoadImages(path, classes, read, spec);
}

absl::StatusOr<std::pair<int64_t, int64_t>> ImageArchiveCounts(
    const std::string& path) {
  ASSIGN_OR_RETURN(ArchiveListing listing, ListImageArchive(path));
  std::vector<std::string> entries;
  for (const auto& [name, size] : listing.sizes) entries.push_back(name);
  ASSIGN_OR_RETURN(std::vector<ClassFiles> classes,
                   ArchiveClasses(path, entries));
  int64_t images = 0;
  for (const ClassFiles& c : classes) {
    images += static_cast<int64_t>(c.paths.size());
  }
  return std::make_pair(images, static_cast<int64_t>(classes.size()));
}

absl::StatusOr<ImageFacts> ProbeImages(const std::string& path) {
  ImageFacts facts;
  ImageFolderSpec spec{.channels = 3, .height = 1, .width = 1, .resize = true};
  std::string first, bytes;
  std::vector<ClassFiles> classes;
  if (IsImageArchive(path)) {
    ASSIGN_OR_RETURN(ArchiveListing listing, ListImageArchive(path));
    std::vector<std::string> entries;
    for (const auto& [name, size] : listing.sizes) entries.push_back(name);
    ASSIGN_OR_RETURN(classes, ArchiveClasses(path, entries));
    first = classes[0].paths[0];
    const zip_uint64_t size = listing.sizes[first];
    if (size > static_cast<zip_uint64_t>(spec.max_bytes)) {
      return absl::InvalidArgumentError(StrCat(path, ":", first, ": too large"));
    }
    zip_file_t* f = zip_fopen(listing.zip.get(), first.c_str(), 0);
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          StrCat(path, ":", first, ": cannot be opened"));
    }
    bytes.assign(size, '\0');
    const zip_int64_t got = zip_fread(f, bytes.data(), bytes.size());
    zip_fclose(f);
    if (got != static_cast<zip_int64_t>(size)) {
      return absl::InvalidArgumentError(StrCat(path, ":", first, ": corrupt"));
    }
    first = StrCat(path, ":", first);
  } else {
    ASSIGN_OR_RETURN(classes, ListClasses(path));
    first = classes[0].paths[0];
    ASSIGN_OR_RETURN(bytes, ReadFile(first, spec.max_bytes));
  }
  ASSIGN_OR_RETURN(Image image, Decode(first, bytes, spec));
  facts.width = image.header.width;
  facts.height = image.header.height;
  facts.channels = image.header.channels;
  for (const ClassFiles& c : classes) {
    facts.classes.push_back(c.name);
    facts.images += static_cast<int64_t>(c.paths.size());
  }
  return facts;
}

}  // namespace webnnm::train
