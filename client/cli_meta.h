// webnnmctl's commands about itself (docs/cli.md): `help [COMMAND…]`,
// `completion bash|zsh`, and naming an unknown command. They read the
// command line's own CLI11 tree, so a new command or option is in the help
// and the completions without more code.
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

// The command word of argv (the first argument that is neither an option
// nor the value of one of `app`'s options that take a value), when it
// names no command of `app`; empty otherwise.
std::string UnknownCommand(const CLI::App& app, int argc, char** argv);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_CLI_META_H_
