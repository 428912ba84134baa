#include "client/did_you_mean.h"

#include <algorithm>

namespace webnnm::client {
namespace {

// The commands a user may type at `app` (no hidden ones).
std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// The options `chain`'s last command takes: its own and, through
// fallthrough, those of the commands above it.
std::vector<const CLI::Option*> Options(
    const std::vector<const CLI::App*>& chain) {
  std::vector<const CLI::Option*> options;
  for (const CLI::App* app : chain) {
    for (const CLI::Option* o : app->get_options({})) {
      if (o->nonpositional()) options.push_back(o);
    }
  }
  return options;
}

std::vector<std::string> OptionSpellings(
    const std::vector<const CLI::Option*>& options) {
  std::vector<std::string> names;
  for (const CLI::Option* o : options) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string Path(const std::vector<const CLI::App*>& chain) {
  std::string path;
  for (size_t i = 1; i < chain.size(); ++i) {
    path += (path.empty() ? "" : " ") + chain[i]->get_name();
  }
  return path;
}

std::string Hint(const std::string& near, const std::string& help) {
  return near.empty() ? " (" + help + ")"
                      : " (did you mean " + near + "?; " + help + ")";
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string Nearest(std::string_view word,
                    const std::vector<std::string>& names) {
  const size_t most = std::max<size_t>(1, word.size() / 3);
  std::string best;
  size_t best_distance = most + 1;
  for (const std::string& name : names) {
    const size_t d = EditDistance(word, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string UsageError(const CLI::App& app, const CLI::ParseError& error,
                       int argc, char** argv) {
  std::vector<const CLI::App*> chain = {&app};
  bool positional_seen = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.size() > 1 && word[0] == '-') {
      const std::string name = word.substr(0, word.find('='));
      if (name == "--") break;
      const std::vector<const CLI::Option*> options = Options(chain);
      const CLI::Option* known = nullptr;
      for (const CLI::Option* o : options) {
        if (o->check_name(name)) known = o;
      }
      if (known == nullptr && name != "-h" && name != "--help") {
        const std::string path = Path(chain);
        return "webnnmctl: " + (path.empty() ? "" : path + ": ") +
               "unknown option " + name +
               Hint(Nearest(name, OptionSpellings(options)),
                    "webnnmctl help " + (path.empty() ? "" : path + " ") +
                        "lists " + (path.empty() ? "the" : "its") + " options");
      }
      if (known != nullptr && known->get_type_size() > 0 &&
          word.find('=') == std::string::npos) {
        ++i;  // its value
      }
      continue;
    }
    const CLI::App* at = chain.back();
    if (positional_seen || at->get_subcommands({}).empty()) {
      positional_seen = true;
      continue;
    }
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : at->get_subcommands({})) {
      if (s->check_name(word)) sub = s;
    }
    if (sub == nullptr) {
      if (at != &app && at->get_require_subcommand_min() == 0) {
        positional_seen = true;
        continue;
      }
      const std::string path = Path(chain);
      const std::string full = path.empty() ? word : path + " " + word;
      return "webnnmctl: unknown command '" + full + "'" +
             Hint(Nearest(word, CommandNames(*at)),
                  "webnnmctl help " + (path.empty() ? "" : path + " ") +
                      "lists the commands");
    }
    chain.push_back(sub);
  }
  std::string message = error.what();
  const std::string path = Path(chain);
  return "webnnmctl: " + (path.empty() ? "" : path + ": ") + message +
         " (webnnmctl help " + (path.empty() ? "" : path + " ") +
         "shows the usage)";
}

}  // namespace webnnm::client
