// webnnmctl: the WebNNM command line (DESIGN.md §8).
//
// Exit codes everywhere: 0 success, 1 failure (such as an invalid model),
// 2 usage error (bad flags, unreadable file).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "client/check_report.h"
#include "client/cli_meta.h"
#include "client/did_you_mean.h"
#include "client/export_command.h"
#include "client/init_command.h"
#include "client/predict_command.h"
#include "client/remote.h"
#include "client/test_command.h"
#include "client/train_command.h"
#include "client/yaml_output.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct GlobalOptions {
  std::string output = "table";
};

// `webnnmctl check FILE`: parse and build the DAG in-process.
int RunCheck(const std::string& path, const GlobalOptions& global) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "webnnmctl: cannot read '" << path << "'\n";
    return kExitUsage;
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    std::cerr << "webnnmctl: cannot read '" << path << "'\n";
    return kExitUsage;
  }
  webnnm::CheckResult result = webnnm::CheckModel(path, text.str());
  if (global.output == "json") {
    std::cout << webnnm::client::CheckJson(result) << "\n";
  } else {
    std::cerr << result.rendered;
    std::cout << webnnm::client::CheckText(result);
  }
  return result.ok ? kExitOk : kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "webnnmctl: check models, train and test them, and drive the "
      "webnnmd daemon"};
  app.require_subcommand(1);
  // Every option's default shows in its help (options made later inherit
  // this, subcommands' too).
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", std::string("webnnmctl ") + WEBNNM_VERSION,
                       "Print webnnmctl's version and exit");
  GlobalOptions global;
  app.add_option("-o,--output", global.output,
                 "Output format: table, json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}))
      ->capture_default_str();

  std::string check_file;
  CLI::App* check = app.add_subcommand(
      "check", "Parse a model, build its DAG and print a summary");
  check->add_option("FILE", check_file, "The model file (.wnm)")->required();
  check->fallthrough();

  webnnm::client::InitOptions init_options;
  CLI::App* init = webnnm::client::AddInitCommand(app, init_options);
  init->fallthrough();

  webnnm::client::TrainOptions train_options;
  CLI::App* train = webnnm::client::AddTrainCommand(app, train_options);
  train->fallthrough();

  webnnm::client::TestOptions test_options;
  CLI::App* test = webnnm::client::AddTestCommand(app, test_options);
  test->fallthrough();

  webnnm::client::PredictOptions predict_options;
  CLI::App* predict = webnnm::client::AddPredictCommand(app, predict_options);
  predict->fallthrough();

  // No fallthrough: its -o is the file it writes (the format goes before
  // the command: webnnmctl -o json export ...).
  webnnm::client::ExportOptions export_options;
  CLI::App* export_command =
      webnnm::client::AddExportCommand(app, export_options);

  webnnm::client::RemoteOptions remote;
  webnnm::client::AddRemoteCommands(app, remote);
  remote.submit->fallthrough();

  std::vector<std::string> help_words;
  CLI::App* help = app.add_subcommand(
      "help", "Show the help of webnnmctl, or of a command and its options");
  help->add_option("COMMAND", help_words,
                   "The command (and its subcommand), such as: dataset list");
  std::string shell;
  CLI::App* completion =
      app.add_subcommand("completion", "Print a shell completion script");
  completion->add_option("SHELL", shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    // COMMAND --help is `help COMMAND`: its options, then the global ones.
    std::vector<std::string> path;
    for (const CLI::App* at = &app;;) {
      const CLI::App* next = nullptr;
      for (const CLI::App* sub : at->get_subcommands({})) {
        if (sub->count() > 0) next = sub;
      }
      if (next == nullptr) break;
      path.push_back(next->get_name());
      at = next;
    }
    if (path.empty()) return app.exit(e);
    return webnnm::client::RunHelp(app, path);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Worded for a newcomer: the prefix, the nearest command or option.
    std::cerr << webnnm::client::UsageError(app, e, argc, argv) << "\n";
    return kExitUsage;
  }
  if (*help) return webnnm::client::RunHelp(app, help_words);
  if (*completion) {
    std::cout << webnnm::client::CompletionScript(app, shell);
    return kExitOk;
  }
  // YAML: the command writes JSON, each document rewritten on the way out.
  std::optional<webnnm::client::YamlCout> yaml;
  if (global.output == "yaml") {
    yaml.emplace();
    global.output = "json";
  }
  if (*check) return RunCheck(check_file, global);
  if (*init) {
    return webnnm::client::RunInit(init_options, global.output == "json");
  }
  if (*train) {
    train_options.argv.assign(argv, argv + argc);
    if (!train_options.local) {
      return webnnm::client::RunRemoteTrain(remote, train_options,
                                            train->count("--backend") > 0,
                                            global.output == "json");
    }
    return webnnm::client::RunTrain(train_options, global.output == "json");
  }
  if (*test) {
    test_options.backend_given = test->count("--backend") > 0;
    if (!test_options.local) {
      return webnnm::client::RunRemoteTest(remote, test_options,
                                           global.output == "json");
    }
    return webnnm::client::RunTest(test_options, global.output == "json");
  }
  if (*predict) {
    const bool json = global.output == "json";
    if (!predict_options.local && predict_options.load.empty()) {
      // Usage is checked as for --local first (the output's extension).
      const std::string& out = predict_options.output;
      if (!out.empty() && !out.ends_with(".csv") && !out.ends_with(".npz")) {
        std::cerr << "webnnmctl: --output takes a .csv or a .npz file, not "
                  << out << "\n";
        return kExitUsage;
      }
      return webnnm::client::RunRemotePredict(remote, predict_options, json);
    }
    return webnnm::client::RunPredict(predict_options, json);
  }
  if (*export_command) {
    const bool json = global.output == "json";
    return export_options.local
               ? webnnm::client::RunExport(export_options, json)
               : webnnm::client::RunRemoteExport(remote, export_options, json);
  }
  int code = webnnm::client::RunRemote(remote, global.output == "json");
  return code >= 0 ? code : kExitUsage;
}
