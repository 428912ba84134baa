#include "engine/data/npz_write.h"

#include <zip.h>

#include <cstring>
#include <memory>

#include "engine/base/strings.h"

namespace webnnm::train {
namespace {

// UTF-8 to code points (a malformed sequence's first byte becomes U+FFFD).
std::u32string CodePoints(const std::string& text) {
  std::u32string out;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const int extra = c < 0x80             ? 0
                      : (c & 0xe0) == 0xc0 ? 1
                      : (c & 0xf0) == 0xe0 ? 2
                      : (c & 0xf8) == 0xf0 ? 3
                                           : -1;
    bool valid = extra >= 0 && i + extra < text.size();
    for (int k = 1; valid && k <= extra; ++k) {
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    }
    if (!valid) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    char32_t cp = extra == 0 ? c : c & (0x7f >> (extra + 1));
    for (int k = 1; k <= extra; ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are no
    // UTF-8 (NumPy refuses them): the lead byte becomes U+FFFD.
    static constexpr char32_t kLeast[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kLeast[extra] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    out += cp;
    i += extra + 1;
  }
  return out;
}

// NumPy's shape tuple: (), (3,) or (3, 4).
std::string ShapeTuple(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += StrCat(i ? ", " : "", shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

NpyOut Float32Array(std::string name, std::vector<int64_t> shape,
                    const std::vector<double>& values) {
  NpyOut a{std::move(name), "<f4", std::move(shape), {}};
  a.data.resize(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    std::memcpy(a.data.data() + 4 * i, &f, 4);
  }
  return a;
}

NpyOut Int64Array(std::string name, std::vector<int64_t> shape,
                  const std::vector<int64_t>& values) {
  NpyOut a{std::move(name), "<i8", std::move(shape), {}};
  a.data.resize(values.size() * 8);
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

NpyOut UnicodeArray(std::string name, const std::vector<std::string>& texts) {
  std::vector<std::u32string> points;
  size_t longest = 1;
  for (const std::string& t : texts) {
    points.push_back(CodePoints(t));
    longest = std::max(longest, points.back().size());
  }
  NpyOut a{std::move(name),
           StrCat("<U", longest),
           {static_cast<int64_t>(texts.size())},
           {}};
  a.data.assign(texts.size() * longest * 4, '\0');
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t k = 0; k < points[i].size(); ++k) {
      const uint32_t cp = points[i][k];
      std::memcpy(a.data.data() + (i * longest + k) * 4, &cp, 4);
    }
  }
  return a;
}

std::string EncodeNpy(const NpyOut& a) {
  std::string header = StrCat(
      "{'descr': '", a.descr,
      "', 'fortran_order': False, 'shape': ", ShapeTuple(a.shape), ", }");
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + a.data;
}

absl::StatusOr<std::string> EncodeZip(
    const std::vector<std::pair<std::string, std::string>>& files) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (buffer == nullptr) return absl::InternalError("libzip: no buffer");
  zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (archive == nullptr) {
    zip_source_free(buffer);
    return absl::InternalError("libzip: cannot open an archive in memory");
  }
  zip_source_keep(buffer);  // past zip_close, to read the bytes
  for (const auto& [name, data] : files) {
    zip_source_t* s = zip_source_buffer(archive, data.data(), data.size(), 0);
    const zip_int64_t index =
        s == nullptr ? -1
                     : zip_file_add(archive, name.c_str(), s,
                                    ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      if (s != nullptr) zip_source_free(s);
      zip_discard(archive);
      zip_source_free(buffer);
      return absl::InternalError(StrCat("libzip: cannot add ", name));
    }
    zip_set_file_compression(archive, index, ZIP_CM_DEFLATE, 0);
    // A fixed DOS date and time (1980-01-01 00:00, whatever the time
    // zone): the same files make the same bytes (and hash).
    zip_file_set_dostime(archive, index, 0, 0x21, 0);
  }
  if (zip_close(archive) != 0) {
    zip_discard(archive);
    zip_source_free(buffer);
    return absl::InternalError("libzip: cannot write the archive");
  }
  std::string bytes;
  zip_stat_t stat;
  if (zip_source_stat(buffer, &stat) == 0 && zip_source_open(buffer) == 0) {
    bytes.resize(stat.size);
    const zip_int64_t got = zip_source_read(buffer, bytes.data(), stat.size);
    zip_source_close(buffer);
    if (got != static_cast<zip_int64_t>(stat.size)) bytes.clear();
  }
  zip_source_free(buffer);
  if (bytes.empty()) return absl::InternalError("libzip: cannot read back");
  return bytes;
}

absl::StatusOr<std::string> EncodeNpz(const std::vector<NpyOut>& arrays) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const NpyOut& a : arrays)
    files.emplace_back(a.name + ".npy", EncodeNpy(a));
  return EncodeZip(files);
}

}  // namespace webnnm::train
