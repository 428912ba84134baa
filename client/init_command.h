// `webnnmctl init --dataset FILE [--label COLUMN] [--name NAME]
// [--output MODEL.wnm] [--force]`: writes a starter model that fits the
// data (engine/expert/starter_model.h) to MODEL.wnm (default: the data's
// stem, .wnm, beside the current directory) or, with `--output -`, to
// standard output; checks it before writing. Says what it chose on
// standard error (-o json: {"model": FILE, "label": ..., "notes": [...]}).
// Exit codes: 0 written, 1 the model does not check (a bug: never
// written), 2 usage (no such data, data it cannot model, an existing file
// without --force).
#ifndef WEBNNM_CLIENT_INIT_COMMAND_H_
#define WEBNNM_CLIENT_INIT_COMMAND_H_

#include <string>

#include <CLI/CLI.hpp>

namespace webnnm::client {

struct InitOptions {
  std::string dataset;
  std::string label;
  std::string name;
  std::string output;
  bool no_header = false;
  bool force = false;
};

CLI::App* AddInitCommand(CLI::App& app, InitOptions& options);
int RunInit(const InitOptions& options, bool json);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_INIT_COMMAND_H_
