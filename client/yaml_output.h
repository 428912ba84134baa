// `-o yaml`: webnnmctl's JSON documents written as YAML (1.2, block style).
// Every command that prints JSON prints one document a line; with -o yaml
// the command runs as with -o json and each such line becomes a YAML
// document (the second and later ones after a '---' line, so a stream of
// events reads with any YAML loader's load_all). Lines that are not JSON
// (progress, messages) pass through unchanged.
#ifndef WEBNNM_CLIENT_YAML_OUTPUT_H_
#define WEBNNM_CLIENT_YAML_OUTPUT_H_

#include <ostream>
#include <streambuf>
#include <string>

#include <nlohmann/json.hpp>

namespace webnnm::client {

// `value` as a YAML document (ends with a newline). Strings stay plain
// where YAML reads them back as the same string, multi-line strings become
// literal blocks, others are double-quoted.
std::string ToYaml(const nlohmann::ordered_json& value);

// While alive, std::cout's lines that hold a JSON object or array are
// written as YAML documents; the destructor flushes a last unfinished line.
class YamlCout {
 public:
  YamlCout();
  ~YamlCout();
  YamlCout(const YamlCout&) = delete;
  YamlCout& operator=(const YamlCout&) = delete;

 private:
  class Buffer;
  Buffer* buffer_;
  std::streambuf* original_;
};

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_YAML_OUTPUT_H_
