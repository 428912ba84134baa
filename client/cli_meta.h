// webnnmctl's commands about itself (docs/cli.md): `help [COMMAND…]` and
// `completion bash|zsh` (a mistyped command or option: did_you_mean.h).
// They read the command line's own CLI11 tree, so a new command or option
// is in the help and the completions without more code.
#ifndef WEBNNM_CLIENT_CLI_META_H_
#define WEBNNM_CLIENT_CLI_META_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace webnnm::client {

// Prints the help of the command `words` names (none: the whole command
// line's), with the global options and every default, to standard output.
// Returns 0, or 2 after naming an unknown command on standard error.
int RunHelp(CLI::App& app, const std::vector<std::string>& words);

// A completion script for `shell` ("bash" or "zsh") that completes the
// commands, their subcommands and options, and files elsewhere.
std::string CompletionScript(const CLI::App& app, const std::string& shell);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_CLI_META_H_
