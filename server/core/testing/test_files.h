// Files the core's tests read: the shipped iris data and model, and a
// whole file read as bytes. Needs WEBNNM_SOURCE_DIR (server_test defines
// it: the repository's root).
#ifndef WEBNNM_SERVER_CORE_TESTING_TEST_FILES_H_
#define WEBNNM_SERVER_CORE_TESTING_TEST_FILES_H_

#include <fstream>
#include <sstream>
#include <string>

namespace webnnm::server::testing_files {

inline constexpr char kIris[] = WEBNNM_SOURCE_DIR "/configs/datasets/iris.csv";
inline constexpr char kModel[] = WEBNNM_SOURCE_DIR "/configs/models/iris.wnm";

// The bytes of `path` ("" when it cannot be read).
inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace webnnm::server::testing_files

#endif  // WEBNNM_SERVER_CORE_TESTING_TEST_FILES_H_
