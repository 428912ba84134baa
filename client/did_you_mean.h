// Usage errors a newcomer can act on: the nearest command or option to a
// mistyped one ("did you mean submit?"), and CLI11's parse errors worded
// with the `webnnmctl:` prefix and a pointer to the command's help.
#ifndef WEBNNM_CLIENT_DID_YOU_MEAN_H_
#define WEBNNM_CLIENT_DID_YOU_MEAN_H_

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace webnnm::client {

// Optimal string alignment distance: insertions, deletions, substitutions
// and transpositions of neighbours each cost one.
size_t EditDistance(std::string_view a, std::string_view b);

// The name of `names` nearest to `word` when near enough to be a slip (at
// most a third of the word's length, at least one edit; ties: the first);
// empty otherwise.
std::string Nearest(std::string_view word,
                    const std::vector<std::string>& names);

// The message for a command line CLI11 refused (without a trailing
// newline): "webnnmctl: unknown command 'sumbit' (did you mean submit?
// ...)", "webnnmctl: submit: unknown option --lable (did you mean
// --label?; webnnmctl help submit lists its options)", or CLI11's own
// message after the prefix.
std::string UsageError(const CLI::App& app, const CLI::ParseError& error,
                       int argc, char** argv);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_DID_YOU_MEAN_H_
