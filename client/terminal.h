// What webnnmctl knows of the terminal it writes to: whether a stream is
// one, its width, and colour (on a terminal only, never with NO_COLOR set
// or TERM=dumb: https://no-color.org).
#ifndef WEBNNM_CLIENT_TERMINAL_H_
#define WEBNNM_CLIENT_TERMINAL_H_

#include <string>
#include <string_view>
#include <vector>

namespace webnnm::client {

enum class Paint { kRed, kYellow, kGreen, kCyan, kBold, kDim };

// Whether file descriptor `fd` is a terminal.
bool IsTerminal(int fd);
// Whether to colour what goes to `fd`.
bool UseColour(int fd);
// `fd`'s columns (TIOCGWINSZ, else $COLUMNS, else 80).
int Columns(int fd);

// `text` wrapped in `paint`'s escape codes when `on`.
std::string Painted(std::string_view text, Paint paint, bool on);
// A job state's name, painted by what it means (SUCCEEDED green, FAILED
// red, CANCELLED yellow, RUNNING cyan) when `on`.
std::string PaintedState(std::string_view state, bool on);
// "warning: ..." and "error: ..." with the word painted when `on`.
std::string PaintedMessage(std::string_view line, bool on);

// The characters (UTF-8 code points) of `text`, not its bytes.
size_t DisplayWidth(std::string_view text);
// `text` cut to at most `width` characters (an ellipsis ends a cut text).
std::string Cut(std::string_view text, size_t width);

// A line of fields that fits `width`: each field has a priority (lower is
// dropped first); the fields kept stay in their order, joined by two
// spaces, and a line that still does not fit is cut.
struct Field {
  std::string text;
  int priority = 0;
};
std::string FitFields(const std::vector<Field>& fields, size_t width);

// `rows` (the first is the header) as aligned columns, two spaces apart,
// each line ending with a newline; a column is right-aligned when every
// cell below the header is a number (or "-").
std::string Table(const std::vector<std::vector<std::string>>& rows);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_TERMINAL_H_
