#include "client/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace webnnm::client {

bool IsTerminal(int fd) { return isatty(fd) == 1; }

bool UseColour(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && no_colour[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return IsTerminal(fd);
}

int Columns(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    const int n = std::atoi(columns);
    if (n > 0) return n;
  }
  return 80;
}

std::string Painted(std::string_view text, Paint paint, bool on) {
  if (!on) return std::string(text);
  const char* code = "";
  switch (paint) {
    case Paint::kRed:
      code = "\033[31m";
      break;
    case Paint::kYellow:
      code = "\033[33m";
      break;
    case Paint::kGreen:
      code = "\033[32m";
      break;
    case Paint::kCyan:
      code = "\033[36m";
      break;
    case Paint::kBold:
      code = "\033[1m";
      break;
    case Paint::kDim:
      code = "\033[2m";
      break;
  }
  return std::string(code) + std::string(text) + "\033[0m";
}

std::string PaintedState(std::string_view state, bool on) {
  if (state == "SUCCEEDED") return Painted(state, Paint::kGreen, on);
  if (state == "FAILED") return Painted(state, Paint::kRed, on);
  if (state == "CANCELLED") return Painted(state, Paint::kYellow, on);
  if (state == "RUNNING") return Painted(state, Paint::kCyan, on);
  return std::string(state);
}

std::string PaintedMessage(std::string_view line, bool on) {
  for (auto [word, paint] :
       {std::pair{std::string_view("warning:"), Paint::kYellow},
        std::pair{std::string_view("error:"), Paint::kRed}}) {
    const size_t at = line.find(word);
    // At the start, or after a time stamp's or a prefix's space.
    if (at != std::string_view::npos && (at == 0 || line[at - 1] == ' ')) {
      return std::string(line.substr(0, at)) + Painted(word, paint, on) +
             std::string(line.substr(at + word.size()));
    }
  }
  return std::string(line);
}

size_t DisplayWidth(std::string_view text) {
  return static_cast<size_t>(std::count_if(
      text.begin(), text.end(),
      [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string Cut(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts && ++chars > width - 1) break;
    out += text[i];
  }
  return out + "…";
}

std::string FitFields(const std::vector<Field>& fields, size_t width) {
  std::vector<bool> kept(fields.size(), true);
  auto joined = [&] {
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!kept[i]) continue;
      if (!line.empty()) line += "  ";
      line += fields[i].text;
    }
    return line;
  };
  std::string line = joined();
  while (DisplayWidth(line) > width) {
    // Drop the lowest priority field left (the last of equals).
    int drop = -1;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (kept[i] &&
          (drop < 0 || fields[i].priority <= fields[drop].priority)) {
        drop = static_cast<int>(i);
      }
    }
    if (drop < 0 || std::count(kept.begin(), kept.end(), true) == 1) break;
    kept[drop] = false;
    line = joined();
  }
  return Cut(line, width);
}

std::string Table(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return "";
  const size_t columns = rows[0].size();
  std::vector<size_t> widths(columns, 0);
  std::vector<bool> numeric(columns, rows.size() > 1);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns && c < rows[r].size(); ++c) {
      const std::string& cell = rows[r][c];
      widths[c] = std::max(widths[c], DisplayWidth(cell));
      if (r > 0 && cell != "-" &&
          (cell.empty() ||
           cell.find_first_not_of("0123456789.-+e") != std::string::npos)) {
        numeric[c] = false;
      }
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < columns && c < row.size(); ++c) {
      const std::string pad(widths[c] - DisplayWidth(row[c]), ' ');
      if (c > 0) line += "  ";
      line += numeric[c] ? pad + row[c] : row[c] + (c + 1 < columns ? pad : "");
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace webnnm::client
