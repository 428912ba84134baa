// CSV as RFC 4180 reads it: fields separated by commas, records by LF or
// CRLF (a final line ending optional), fields optionally quoted with double
// quotes (a quote inside a quoted field is written twice; quoted fields may
// hold commas and line endings), and an optional UTF-8 byte-order mark.
// Every record must have as many fields as the first; errors name the file
// and line.
#ifndef WEBNNM_ENGINE_DATA_CSV_H_
#define WEBNNM_ENGINE_DATA_CSV_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::train {

struct CsvTable {
  std::vector<std::vector<std::string>> records;
  std::vector<int> lines;  // the line each record starts on (1-based)
};

// Parses `text`; `file` names it in errors.
absl::StatusOr<CsvTable> ParseCsv(std::string_view text,
                                  const std::string& file);

// A field as a finite number (blanks around it and a leading '+' allowed);
// false when it is none.
bool ParseCsvNumber(std::string_view text, double& value);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_CSV_H_
