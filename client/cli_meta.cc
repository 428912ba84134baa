#include "client/cli_meta.h"

#include <iostream>
#include <sstream>

namespace webnnm::client {
namespace {

// The named subcommand of `app`, or null.
const CLI::App* Subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

std::vector<const CLI::App*> Subcommands(const CLI::App& app) {
  return app.get_subcommands({});
}

// Every long and short option name of `app`, "--server" and "-o" alike.
std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options({})) {
    if (!o->nonpositional()) continue;
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The words completing a command path's next word: its subcommands and
// options.
std::string Words(const CLI::App& app) {
  std::vector<std::string> words;
  for (const CLI::App* sub : Subcommands(app)) words.push_back(sub->get_name());
  for (const std::string& o : OptionNames(app)) words.push_back(o);
  return Join(words);
}

// `case` branches mapping "command" and "command sub" paths to their words.
void Cases(const CLI::App& app, const std::string& prefix,
           std::ostringstream& out, const char* close) {
  for (const CLI::App* sub : Subcommands(app)) {
    const std::string path =
        prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
    out << "    \"" << path << "\") words=\"" << Words(*sub) << "\"" << close
        << "\n";
    Cases(*sub, path, out, close);
  }
}

std::string BashScript(const CLI::App& app) {
  std::ostringstream out;
  out << "# webnnmctl completion for bash: source it, or put it in\n"
         "# /etc/bash_completion.d (webnnmctl completion bash > ...).\n"
         "_webnnmctl() {\n"
         "  local cur path word i\n"
         "  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
         "  path=\"\"\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    word=\"${COMP_WORDS[i]}\"\n"
         "    case \"$word\" in -*) continue ;; esac\n"
         "    case \"${path:+$path }$word\" in\n";
  // Only command words extend the path (an argument such as a job id or a
  // file does not).
  for (const CLI::App* sub : Subcommands(app)) {
    out << "      \"" << sub->get_name() << "\"";
    for (const CLI::App* subsub : Subcommands(*sub)) {
      out << "|\"" << sub->get_name() << " " << subsub->get_name() << "\"";
    }
    out << ") path=\"${path:+$path }$word\" ;;\n";
  }
  out << "    esac\n"
         "  done\n"
         "  local words=\"" << Words(app) << "\"\n"
         "  case \"$path\" in\n";
  std::ostringstream cases;
  Cases(app, "", cases, " ;;");
  out << cases.str()
      << "  esac\n"
         "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "  if [[ \"$cur\" != -* ]]; then\n"
         "    COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _webnnmctl webnnmctl\n";
  return out.str();
}

std::string ZshScript(const CLI::App& app) {
  std::ostringstream out;
  out << "#compdef webnnmctl\n"
         "# webnnmctl completion for zsh: put it in a directory of $fpath\n"
         "# as _webnnmctl (webnnmctl completion zsh > _webnnmctl).\n"
         "_webnnmctl() {\n"
         "  local path_ word i\n"
         "  path_=\"\"\n"
         "  for ((i = 2; i < CURRENT; i++)); do\n"
         "    word=\"${words[i]}\"\n"
         "    [[ \"$word\" == -* ]] && continue\n"
         "    case \"${path_:+$path_ }$word\" in\n";
  for (const CLI::App* sub : Subcommands(app)) {
    out << "      \"" << sub->get_name() << "\"";
    for (const CLI::App* subsub : Subcommands(*sub)) {
      out << "|\"" << sub->get_name() << " " << subsub->get_name() << "\"";
    }
    out << ") path_=\"${path_:+$path_ }$word\" ;;\n";
  }
  out << "    esac\n"
         "  done\n"
         "  local choices=\"" << Words(app) << "\"\n"
         "  case \"$path_\" in\n";
  std::ostringstream cases;
  Cases(app, "", cases, " ;;");
  std::string body = cases.str();
  // The same branches, assigning `choices`.
  for (size_t at = body.find("words="); at != std::string::npos;
       at = body.find("words=", at)) {
    body.replace(at, 6, "choices=");
    at += 8;
  }
  out << body
      << "  esac\n"
         "  compadd -- ${=choices}\n"
         "  _files\n"
         "}\n"
         "compdef _webnnmctl webnnmctl\n";
  return out.str();
}

}  // namespace

int RunHelp(CLI::App& app, const std::vector<std::string>& words) {
  const CLI::App* at = &app;
  std::string path;
  for (const std::string& w : words) {
    const CLI::App* sub = Subcommand(*at, w);
    if (sub == nullptr) {
      std::cerr << "webnnmctl: unknown command '"
                << (path.empty() ? w : path + " " + w)
                << "' (webnnmctl help lists the commands)\n";
      return 2;
    }
    at = sub;
    path = path.empty() ? w : path + " " + w;
  }
  // The formatter, not App::help(), which shows the parsed subcommand's
  // help (here: help's own).
  std::cout << app.get_formatter()->make_help(
      at, path.empty() ? "webnnmctl" : "webnnmctl " + path,
      CLI::AppFormatMode::Normal);
  if (at != &app) {
    // The global options apply to every command.
    std::cout << "\nGlobal options (before or after the command):\n";
    for (const CLI::Option* o : app.get_options({})) {
      if (!o->nonpositional() || o->get_name() == "--help" ||
          o->get_name() == "--version") {
        continue;
      }
      std::string name = o->get_name(false, true);
      if (o->get_type_size() > 0) name += " " + o->get_type_name();
      std::cout << "  " << name;
      if (name.size() >= 28) std::cout << "\n  ";  // as CLI11 does
      for (size_t pad = name.size() >= 28 ? 0 : name.size(); pad < 28; ++pad) {
        std::cout << ' ';
      }
      std::cout << o->get_description();
      if (!o->get_default_str().empty()) {
        std::cout << " (default: " << o->get_default_str() << ")";
      }
      std::cout << "\n";
    }
  }
  return 0;
}

std::string CompletionScript(const CLI::App& app, const std::string& shell) {
  return shell == "zsh" ? ZshScript(app) : BashScript(app);
}

}  // namespace webnnm::client
