// Small text helpers shared by webnnmctl's commands.
#ifndef WEBNNM_CLIENT_FORMAT_H_
#define WEBNNM_CLIENT_FORMAT_H_

#include <cmath>
#include <cstdio>
#include <string>

namespace webnnm::client {

// `v` with `digits` decimals: Fixed(0.12345, 4) == "0.1235".
inline std::string Fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

// Seconds as m:ss, or h:mm:ss from an hour on (for ETAs).
inline std::string Duration(double seconds) {
  int s = static_cast<int>(std::lround(seconds));
  char buffer[32];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%d:%02d:%02d", s / 3600, s / 60 % 60,
                  s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%d:%02d", s / 60, s % 60);
  }
  return buffer;
}

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_FORMAT_H_
