#include "client/progress.h"

#include <algorithm>
#include <vector>

#include "client/format.h"
#include "client/terminal.h"
#include "engine/base/strings.h"

namespace webnnm::client {

EpochFigures FiguresOf(const train::EpochReport& r) {
  return {.epoch = r.epoch,
          .epochs = r.epochs,
          .train_loss = r.train_loss,
          .train_accuracy = r.train_accuracy,
          .validation_loss = r.validation_loss,
          .validation_accuracy = r.validation_accuracy,
          .lr = r.lr,
          .samples_per_second = r.samples_per_second};
}

EpochFigures FiguresOf(const v1::EpochEvent& p) {
  EpochFigures f{.epoch = p.epoch(),
                 .epochs = p.epochs(),
                 .train_loss = p.train_loss(),
                 .lr = p.lr(),
                 .samples_per_second = p.samples_per_second()};
  if (p.has_train_accuracy()) f.train_accuracy = p.train_accuracy();
  if (p.has_validation_loss()) f.validation_loss = p.validation_loss();
  if (p.has_validation_accuracy()) {
    f.validation_accuracy = p.validation_accuracy();
  }
  return f;
}

std::string EpochText(const EpochFigures& f, size_t width) {
  std::vector<Field> fields = {{StrCat("epoch ", f.epoch, "/", f.epochs), 9},
                               {StrCat("loss ", Fixed(f.train_loss, 4)), 8}};
  if (f.train_accuracy) {
    fields.push_back({StrCat("acc ", Fixed(*f.train_accuracy, 4)), 5});
  }
  if (f.validation_loss) {
    fields.push_back({StrCat("val ", Fixed(*f.validation_loss, 4)), 7});
  }
  if (f.validation_accuracy) {
    fields.push_back({StrCat("val acc ", Fixed(*f.validation_accuracy, 4)), 6});
  }
  fields.push_back({StrCat("lr ", Fixed(f.lr, 6)), 3});
  fields.push_back(
      {StrCat(static_cast<int64_t>(f.samples_per_second), " samples/s"), 2});
  if (width == 0) {
    std::string line;
    for (const Field& field : fields) {
      line += (line.empty() ? "" : "  ") + field.text;
    }
    return line;
  }
  return FitFields(fields, width);
}

Progress::Progress(std::ostream& out, int fd)
    : out_(out), fd_(fd), terminal_(IsTerminal(fd)), colour_(UseColour(fd)) {}

void Progress::ClearStatus() {
  if (status_shown_) out_ << "\r\033[K";
  status_shown_ = false;
}

void Progress::Status(const std::string& text) {
  const size_t width = static_cast<size_t>(std::max(10, Columns(fd_) - 1));
  out_ << "\r\033[K" << Cut(text, width) << std::flush;
  status_shown_ = true;
  last_draw_ = std::chrono::steady_clock::now();
}

std::string Progress::Bar(double fraction) const {
  const int cells = 20;
  const int filled = std::clamp(static_cast<int>(fraction * cells), 0, cells);
  std::string bar = "[" + std::string(filled, '#');
  bar.resize(cells + 1, '.');
  return bar + "]";
}

void Progress::Line(std::string_view text) {
  ClearStatus();
  out_ << PaintedMessage(text, colour_) << "\n";
  out_.flush();
}

void Progress::Epoch(const EpochFigures& f, int64_t samples_per_epoch) {
  const auto now = std::chrono::steady_clock::now();
  if (samples_per_epoch > 0 && f.samples_per_second > 0) {
    seconds_per_epoch_ = samples_per_epoch / f.samples_per_second;
  } else if (last_epoch_ > 0 && f.epoch > last_epoch_) {
    seconds_per_epoch_ =
        std::chrono::duration<double>(now - last_epoch_time_).count() /
        (f.epoch - last_epoch_);
  }
  last_epoch_ = f.epoch;
  last_epoch_time_ = now;
  const int every = std::max(1, (f.epochs + 49) / 50);
  const bool keep = f.epoch == 1 || f.epoch == f.epochs || f.epoch % every == 0;
  if (!terminal_) {
    if (f.epoch == 1 || f.epoch % 50 == 0 || f.epoch == f.epochs) {
      out_ << EpochText(f) << "\n";
      out_.flush();
    }
    return;
  }
  const size_t width = static_cast<size_t>(std::max(10, Columns(fd_) - 1));
  if (keep) {
    ClearStatus();
    out_ << EpochText(f, width) << "\n";
  }
  if (f.epoch < f.epochs) {
    std::string eta =
        seconds_per_epoch_ > 0
            ? "  ETA " + Duration(seconds_per_epoch_ * (f.epochs - f.epoch))
            : "";
    Status(Bar(static_cast<double>(f.epoch) / std::max(1, f.epochs)) +
           StrCat(" epoch ", f.epoch, "/", f.epochs, eta));
  } else {
    out_.flush();
  }
}

void Progress::Step(const train::StepReport& r) {
  if (!terminal_ || r.steps <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (r.step < r.steps && now - last_draw_ < std::chrono::milliseconds(100)) {
    return;
  }
  const double per_step = r.seconds / static_cast<double>(r.step);
  const double epoch_seconds =
      seconds_per_epoch_ > 0 ? seconds_per_epoch_ : per_step * r.steps;
  const double left = per_step * static_cast<double>(r.steps - r.step) +
                      epoch_seconds * std::max(0, r.epochs - r.epoch);
  const double fraction =
      (r.epoch - 1 + static_cast<double>(r.step) / r.steps) /
      std::max(1, r.epochs);
  const size_t width = static_cast<size_t>(std::max(10, Columns(fd_) - 1));
  std::vector<Field> fields = {
      {Bar(fraction), 9},
      {StrCat("epoch ", r.epoch, "/", r.epochs), 8},
      {StrCat("step ", r.step, "/", r.steps), 7},
      {r.seconds > 0
           ? StrCat(static_cast<int64_t>(r.rows / r.seconds), " samples/s")
           : std::string("- samples/s"),
       5},
      {"ETA " + Duration(left), 6}};
  out_ << "\r\033[K" << FitFields(fields, width) << std::flush;
  status_shown_ = true;
  last_draw_ = now;
}

void Progress::End() {
  ClearStatus();
  out_.flush();
}

}  // namespace webnnm::client
