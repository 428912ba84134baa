// How the expert system's words write a number: three significant digits
// (0.0462, 1.08e+03), short enough for a sentence. Internal to
// engine/expert.
#ifndef WEBNNM_ENGINE_EXPERT_FORMAT_H_
#define WEBNNM_ENGINE_EXPERT_FORMAT_H_

#include <cstdio>
#include <string>

namespace webnnm::train {

inline std::string Fixed(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_FORMAT_H_
