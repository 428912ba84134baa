#include "engine/data/dataset_summary.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/csv.h"
#include "engine/data/image_folder.h"
#include "engine/data/npz.h"

namespace webnnm::train {
namespace {

bool IsNumber(const std::string& field) {
  if (field.empty()) return true;  // a missing value, not a name
  char* end = nullptr;
  std::strtod(field.c_str(), &end);
  while (end != nullptr && (*end == ' ' || *end == '\t')) ++end;
  return end != nullptr && *end == '\0' && end != field.c_str();
}

uint32_t BigEndian(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

absl::StatusOr<DatasetSummary> SummarizeCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot read ", path));
  // Records end at a line break outside quotes (RFC 4180: a quoted field
  // may hold line breaks); the first record is kept to be parsed.
  std::string first;
  bool quoted = false, first_done = false, blank = true;
  int64_t records = 0;
  std::vector<char> chunk(1 << 20);
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) ||
         in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      const char c = chunk[static_cast<size_t>(i)];
      if (!first_done) first += c;
      if (c == '"') quoted = !quoted;
      if (c == '\n' && !quoted) {
        if (!blank) {
          ++records;
          first_done = true;
        } else if (!first_done) {
          first.clear();  // a blank line before the first record
        }
        blank = true;
      } else if (c != '\r') {
        blank = false;
      }
    }
  }
  if (!blank) ++records;  // a last record without a line break
  DatasetSummary s;
  if (records == 0) return s;
  ASSIGN_OR_RETURN(CsvTable table, ParseCsv(first, path));
  if (table.records.empty()) return s;
  s.columns = static_cast<int64_t>(table.records[0].size());
  bool header = false;
  for (const std::string& field : table.records[0]) header |= !IsNumber(field);
  if (header) s.header = table.records[0];
  s.rows = records - (header ? 1 : 0);
  return s;
}

absl::StatusOr<DatasetSummary> SummarizeIdx(const std::string& folder) {
  DatasetSummary s;
  for (const char* stem :
       {"train-images-idx3-ubyte", "t10k-images-idx3-ubyte"}) {
    std::string path = (std::filesystem::path(folder) / stem).string();
    if (!std::filesystem::exists(path)) path += ".gz";
    gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
    if (f == nullptr) return absl::NotFoundError(StrCat("cannot read ", path));
    unsigned char head[16];
    const int got = gzread(f, head, sizeof head);
    gzclose(f);
    if (got != static_cast<int>(sizeof head) || head[0] != 0 || head[1] != 0 ||
        head[3] != 3) {
      return absl::InvalidArgumentError(
          StrCat(path, ": not an IDX file of images"));
    }
    s.rows += BigEndian(head + 4);
    s.columns = int64_t{BigEndian(head + 8)} * BigEndian(head + 12);
  }
  return s;
}

absl::StatusOr<DatasetSummary> SummarizeNpz(const std::string& path) {
  ASSIGN_OR_RETURN(auto shapes, NpzShapes(path));
  DatasetSummary s;
  s.columns = static_cast<int64_t>(shapes.size());
  for (const auto& [name, shape] : shapes) {
    if (!shape.empty()) s.rows = std::max(s.rows, shape[0]);
  }
  return s;
}

absl::StatusOr<DatasetSummary> SummarizeImageArchive(const std::string& path) {
  ASSIGN_OR_RETURN(auto counts, ImageArchiveCounts(path));
  return DatasetSummary{.rows = counts.first, .columns = counts.second};
}

}  // namespace webnnm::train
