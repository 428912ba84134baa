// Training progress as webnnmctl shows it, for `train --local` and for
// `watch`/`submit --follow` alike. On a terminal: one kept line per finished
// epoch (Keras's habit; every Nth epoch on long runs, so that at most about
// 50 are kept), messages (decisions, warnings) kept above, and one status
// line redrawn in place below them — a bar, the epoch and step, samples/s
// and the ETA — cut to the terminal's width and cleared at the end, so that
// nothing overwrites a kept line. Elsewhere (a pipe, a file): plain lines,
// epochs 1, every 50th and the last.
#ifndef WEBNNM_CLIENT_PROGRESS_H_
#define WEBNNM_CLIENT_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "engine/train/trainer.h"
#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::client {

struct EpochFigures {
  int epoch = 0, epochs = 0;
  double train_loss = 0;
  std::optional<double> train_accuracy, validation_loss, validation_accuracy;
  double lr = 0, samples_per_second = 0;
};
EpochFigures FiguresOf(const train::EpochReport& r);
EpochFigures FiguresOf(const v1::EpochEvent& e);

// "epoch 3/10  loss 0.1234  acc 0.9000  val 0.2000  val acc 0.8800  lr
// 0.001000  1234 samples/s", fitted to `width` characters by dropping the
// least telling figures first (0: no limit).
std::string EpochText(const EpochFigures& f, size_t width = 0);

class Progress {
 public:
  // `fd` is the descriptor behind `out` (is it a terminal, its width).
  Progress(std::ostream& out, int fd);

  // A message kept above the status line ("warning:" and "error:" painted).
  void Line(std::string_view text);
  // A finished epoch. `samples_per_epoch` (0: unknown) gives the ETA from
  // the speed; else it comes from the time between epochs.
  void Epoch(const EpochFigures& f, int64_t samples_per_epoch = 0);
  // Within an epoch (a terminal only; redrawn at most 10 times a second).
  void Step(const train::StepReport& r);
  // Clears the status line (the kept lines stay).
  void End();

  bool terminal() const { return terminal_; }
  bool colour() const { return colour_; }

 private:
  void Status(const std::string& text);
  void ClearStatus();
  std::string Bar(double fraction) const;

  std::ostream& out_;
  int fd_;
  bool terminal_, colour_;
  bool status_shown_ = false;
  std::chrono::steady_clock::time_point last_draw_{}, last_epoch_time_{};
  int last_epoch_ = 0;
  double seconds_per_epoch_ = 0;
};

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_PROGRESS_H_
