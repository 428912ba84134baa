#include "engine/data/csv.h"

#include <charconv>
#include <cmath>

#include "engine/base/strings.h"

namespace webnnm::train {

absl::StatusOr<CsvTable> ParseCsv(std::string_view text,
                                  const std::string& file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  CsvTable table;
  std::vector<std::string> record;
  std::string field;
  int line = 1, record_line = 1;
  bool quoted = false, field_started = false, after_quote = false;
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_started = false;
    after_quote = false;
  };
  auto end_record = [&]() -> absl::Status {
    end_field();
    // A blank line (one empty, unquoted field) is not a record.
    if (!(record.size() == 1 && record[0].empty())) {
      if (!table.records.empty() &&
          record.size() != table.records.front().size()) {
        return absl::InvalidArgumentError(StrCat(
            file, ":", record_line, ": ", record.size(),
            " fields where the first row has ", table.records.front().size()));
      }
      table.records.push_back(std::move(record));
      table.lines.push_back(record_line);
    }
    record.clear();
    record_line = line;
    return absl::OkStatus();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
          after_quote = true;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++line;
      absl::Status status = end_record();
      if (!status.ok()) return status;
    } else if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
    } else {
      if (after_quote) {
        return absl::InvalidArgumentError(
            StrCat(file, ":", line, ": text after a closing quote"));
      }
      field.push_back(c);
      field_started = true;
    }
  }
  if (quoted) {
    return absl::InvalidArgumentError(
        StrCat(file, ":", record_line, ": a quoted field is not closed"));
  }
  if (field_started || !record.empty()) {
    absl::Status status = end_record();
    if (!status.ok()) return status;
  }
  return table;
}

bool ParseCsvNumber(std::string_view text, double& value) {
  const size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) return false;
  text = text.substr(start, text.find_last_not_of(" \t") - start + 1);
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

}  // namespace webnnm::train
