#include "client/init_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/check.h"
#include "engine/expert/starter_model.h"

namespace webnnm::client {

namespace fs = std::filesystem;

CLI::App* AddInitCommand(CLI::App& app, InitOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "init", "Write a starter model that fits a dataset (CSV, .npz, image "
              "folder or IDX folder) and trains with no flags");
  cmd->add_option("--dataset", o.dataset, "The data the model is for")
      ->required();
  cmd->add_option("--label", o.label,
                  "The CSV's label column (default: a column named like a "
                  "label, else the last)");
  cmd->add_option("--name", o.name, "The model's name (default: the data's)");
  cmd->add_option("--output", o.output,
                  "Where to write the model (default: DATA.wnm in the current "
                  "directory; - for standard output)");
  cmd->add_flag("--no-header", o.no_header,
                "The CSV has no header row (columns c0, c1, ...)");
  cmd->add_flag("--force", o.force, "Replace an existing output file");
  return cmd;
}

int RunInit(const InitOptions& o, bool json) {
  absl::StatusOr<train::StarterModel> model = train::WriteStarterModel(
      o.dataset,
      {.label = o.label, .name = o.name, .no_header = o.no_header});
  if (!model.ok()) {
    std::cerr << "webnnmctl: " << model.status().message() << "\n";
    return 2;
  }
  std::string out = o.output;
  if (out.empty()) out = fs::path(o.dataset).stem().string() + ".wnm";
  // The model must check: a starter that does not is a bug of ours.
  const CheckResult check = CheckModel(out == "-" ? "starter.wnm" : out,
                                       model->text);
  if (!check.ok) {
    std::cerr << "webnnmctl: the starter model does not check (please report "
                 "it):\n"
              << check.rendered << model->text;
    return 1;
  }
  if (out == "-") {
    std::cout << model->text;
  } else {
    std::error_code error;
    if (fs::exists(out, error) && !o.force) {
      std::cerr << "webnnmctl: " << out
                << " exists; give --force to replace it, or --output FILE\n";
      return 2;
    }
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file << model->text;
    file.close();
    if (!file) {
      std::cerr << "webnnmctl: cannot write " << out << "\n";
      return 2;
    }
  }
  if (json) {
    nlohmann::ordered_json j;
    j["model"] = out;
    j["name"] = check.name;
    if (!model->label.empty()) j["label"] = model->label;
    j["notes"] = model->notes;
    j["parameters"] = check.summary ? check.summary->parameter_count : 0;
    (out == "-" ? std::cerr : std::cout) << j.dump() << "\n";
    return 0;
  }
  std::ostream& say = out == "-" ? std::cerr : std::cout;
  if (out != "-") say << "wrote " << out << " (model " << check.name << ")\n";
  for (const std::string& note : model->notes) say << "  " << note << "\n";
  if (check.summary) {
    say << "  " << check.summary->parameter_count << " trainable parameters\n";
  }
  if (out != "-") {
    say << "train it: webnnmctl train --local " << out << " --dataset "
        << o.dataset;
    if (!model->label.empty() && !o.label.empty()) {
      say << " --label " << o.label;
    }
    say << "\n";
  }
  return 0;
}

}  // namespace webnnm::client
